import { lookup } from "node:dns/promises";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from "node:http";
import { connect, createServer as createNetServer, isIP, type Server, type Socket } from "node:net";
import { join } from "node:path";
import type { Readable, Writable } from "node:stream";
import type { Logger } from "../../shared/logger.ts";
import type { Timers } from "../../shared/timers.ts";
import { formatLimit } from "../limits.ts";
import { type EgressPolicy, formatHostPort, sandboxEgressRefusal } from "./address-policy.ts";
import { createEgressByteBudget, type EgressByteBudget } from "./egress-byte-budget.ts";
import type { SandboxEgressLimits } from "./egress-limits.ts";
import { egressRefusalHeader, egressStatusPath } from "./egress-refusal.ts";
import { fdsPerExchange } from "./open-file-share.ts";

/** Resolves a host name to every address it has (dns.lookup by default; tests inject their own). */
export type ResolveHost = (hostname: string) => Promise<readonly string[]>;

export const resolveWithSystem: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

/** What one sandbox child may hold and move through the proxy, and what the proxy may hold for all of them. */
export interface EgressLimits extends SandboxEgressLimits {
  /** File descriptors the proxy may hold for every child together (`egressFdShare`). */
  fdShare: number;
}

export interface EgressProxyOptions {
  /** A directory only the platform may enter: it holds one socket per child. */
  directory: string;
  policy: EgressPolicy;
  resolveHost: ResolveHost;
  logger: Logger;
  timers: Timers;
  limits: EgressLimits;
}

/**
 * How long a destination has to accept the connection (CONNECT) or to answer with its headers
 * (http). Without it, a tenant aiming at addresses that never answer would pile up sockets in the
 * worker until the kernel gave up, minutes later.
 */
export const upstreamDeadlineMs = 10_000;
/** How long a connection has, from its accept, to send its request head: one that sends nothing holds a descriptor for nothing. */
export const headerTimeoutMs = 10_000;
/** A tunnel or forwarded request through which no byte moved either way for this long is cut. */
export const idleTimeoutMs = 60_000;
/**
 * How long a connection refused at accept is kept, half-closed, for its peer to read the answer
 * and close. Closed at once, its peer's request would meet a closed socket (EPIPE) and lose the
 * answer unread, so the reason would never reach the workflow.
 */
export const refusalLingerMs = 1000;

export interface EgressChildUsage {
  connections: number;
  usedBytes: number;
  allowedBytes: number;
  executions: number;
}

/** One sandbox child's way out: its own socket, so each connection is the child's that made it. */
export interface EgressChild {
  /** Bound at /weft/egress.sock in the child's sandbox. */
  socketPath: string;
  usage(): EgressChildUsage;
  /** An execution starts in the child: its byte allowance grows by one execution's budget. */
  executionStarted(): void;
  /** An execution left the child: its unused allowance shrinks back to one budget per execution still in it. */
  executionEnded(): void;
  /** Stops listening and cuts every connection of the child (it exited). */
  close(): Promise<void>;
}

export interface EgressProxy {
  /** Opens a child's socket; `childKey` names the child in the logs. The socket exists when this returns. */
  openChild(childKey: string): EgressChild;
  /** Descriptors the proxy holds now: listening sockets, connections, upstream sockets. */
  fdsInUse(): number;
  close(): Promise<void>;
}

interface ChildState {
  key: string;
  server: Server;
  connections: Set<Socket>;
  /** Connections refused at accept, kept until their peer has read the answer. */
  lingering: number;
  /** Cuts each open tunnel and forwarded request of the child. */
  exchanges: Set<() => void>;
  budget: EgressByteBudget;
}

type Destination = { ok: true; address: string } | { ok: false; status: 403 | 502; reason: string };

const statusText: Record<number, string> = {
  400: "Bad Request",
  403: "Forbidden",
  408: "Request Timeout",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** Hop-by-hop and proxy-only headers, which a proxy never forwards; the refusal header is the proxy's alone. */
const hopByHop = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "te",
  "trailer",
  "upgrade",
  egressRefusalHeader,
];

/** The whole answer of the proxy's own, written straight to a socket that HTTP has not taken (or gave up). */
function rawAnswer(status: number, reason: string): string {
  const body = `weft egress proxy: ${reason}\n`;
  return (
    `HTTP/1.1 ${status} ${statusText[status] ?? "Error"}\r\n` +
    `content-type: text/plain; charset=utf-8\r\nconnection: close\r\n` +
    `${egressRefusalHeader}: ${encodeURIComponent(reason)}\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** Answers and lets go of the descriptor once the answer is written, whatever the peer does. */
function refuseSocket(socket: Socket, status: number, reason: string): void {
  socket.on("error", () => socket.destroy());
  socket.end(rawAnswer(status, reason), () => socket.destroy());
}

/**
 * Moves bytes from one stream to another, keeping to the slower side's pace. `counted` sees each
 * chunk before it is written and returns false to drop it (the exchange is being cut).
 */
function relay(from: Readable, to: Writable, counted: (bytes: number) => boolean): void {
  from.on("data", (chunk: Buffer) => {
    if (!counted(chunk.length)) return;
    if (!to.write(chunk)) {
      from.pause();
      to.once("drain", () => from.resume());
    }
  });
  from.once("end", () => to.end());
}

/**
 * An HTTP proxy for workflow code: absolute-URI requests for http and CONNECT for https. It
 * resolves names itself and connects to the very address it checked, never resolving again, so a
 * name that answers with a public address to the check and a private one to the connect (DNS
 * rebinding) gets nowhere.
 *
 * Each sandbox child reaches it through a socket of its own, so whatever the child's code sends,
 * its connections count against its own limits: connections held at once, bytes moved (per
 * execution, see `EgressByteBudget`), a deadline for the request head and an idle timeout. The
 * descriptors of every child together stay within `fdShare`; past it, connections are answered
 * 503 and closed at once, so the rest of the platform keeps descriptors to serve with.
 */
export function startEgressProxy(options: EgressProxyOptions): EgressProxy {
  const { policy, resolveHost, logger, timers, limits } = options;
  const children = new Set<ChildState>();
  const ownerOf = new WeakMap<Socket, { child: ChildState; headArrived: () => void }>();
  let fds = 0;
  let opened = 0;
  const budgetReason = `egress budget of this execution used up: ${formatLimit(limits.bytesPerExecution)} (WEFT_EGRESS_MB_PER_EXECUTION)`;
  const fdShareReason = `egress refused: the platform's egress proxy holds its share of ${limits.fdShare} file descriptors; try again later`;

  /** Counts a descriptor until its socket closes. */
  function holdFd(socket: Socket): void {
    fds += 1;
    socket.once("close", () => {
      fds -= 1;
    });
  }

  async function destinationOf(rawHost: string, port: number): Promise<Destination> {
    const host = rawHost.replace(/^\[(.*)\]$/, "$1").toLowerCase();
    const target = formatHostPort(host, port);
    let addresses: readonly string[];
    try {
      addresses = isIP(host) === 0 ? await resolveHost(host) : [host];
    } catch {
      return { ok: false, status: 502, reason: `egress to ${target} failed: ${host} could not be resolved` };
    }
    let firstRefusal: string | undefined;
    for (const address of addresses) {
      const verdict = policy.check({ host, port, address });
      if (verdict.allowed) return { ok: true, address };
      firstRefusal ??= sandboxEgressRefusal({ host, port, address }, verdict.kind);
    }
    const reason = firstRefusal ?? `egress to ${target} failed: ${host} has no address`;
    logger.info({ host, port, reason }, "egress refused");
    return { ok: false, status: firstRefusal === undefined ? 502 : 403, reason };
  }

  /**
   * Registers a tunnel or forwarded request of `child`: its bytes draw on the child's budget and
   * keep it from going idle. Using the budget up cuts every exchange of the child. The idle timer
   * runs from `started` (the upstream answered; until then the upstream deadline runs).
   */
  function openExchange(
    child: ChildState,
    cut: () => void,
  ): { started(): void; counted(bytes: number): boolean; close(): void } {
    let closed = false;
    let cancelIdle: () => void = () => undefined;
    const armIdle = () => {
      if (closed) return;
      cancelIdle();
      cancelIdle = timers.after(idleTimeoutMs, () => {
        logger.debug({ child: child.key }, "an idle egress exchange was cut");
        cutHere();
      });
    };
    const close = () => {
      if (closed) return;
      closed = true;
      cancelIdle();
      child.exchanges.delete(cutHere);
    };
    const cutHere = () => {
      close();
      cut();
    };
    child.exchanges.add(cutHere);
    return {
      started: armIdle,
      counted: (bytes) => {
        if (closed) return false;
        if (!child.budget.draw(bytes)) {
          logger.warn({ child: child.key, ...child.budget.usage() }, "a sandbox used up its egress budget");
          for (const exchangeCut of [...child.exchanges]) exchangeCut();
          return false;
        }
        armIdle();
        return true;
      },
      close,
    };
  }

  function answer(response: ServerResponse, status: number, reason: string): void {
    response.writeHead(status, {
      "content-type": "text/plain; charset=utf-8",
      connection: "close",
      [egressRefusalHeader]: encodeURIComponent(reason),
    });
    response.end(`weft egress proxy: ${reason}\n`);
  }

  async function forward(child: ChildState, incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    if (incoming.url === egressStatusPath) {
      // The child's forwarder asks why a connection it relayed was cut.
      if (!child.budget.usedUp()) return void response.writeHead(204, { connection: "close" }).end();
      return answer(response, 200, budgetReason);
    }
    let url: URL;
    try {
      url = new URL(incoming.url ?? "");
    } catch {
      return answer(response, 400, "egress refused: expected an absolute http:// URL (https goes through CONNECT)");
    }
    if (url.protocol !== "http:") {
      return answer(response, 400, "egress refused: only http:// URLs are proxied; https uses CONNECT");
    }
    if (child.budget.usedUp()) return answer(response, 403, budgetReason);
    const port = url.port === "" ? 80 : Number(url.port);
    const destination = await destinationOf(url.hostname, port);
    if (!destination.ok) return answer(response, destination.status, destination.reason);
    if (fds + 1 > limits.fdShare) return answer(response, 503, fdShareReason);
    const target = formatHostPort(url.hostname.replace(/^\[(.*)\]$/, "$1"), port);
    // The absolute URI decides the host, whatever Host header came with it (RFC 9112 §3.2.2).
    const headers: IncomingHttpHeaders = { ...incoming.headers, host: url.host };
    for (const name of hopByHop) delete headers[name];
    const upstream = request({
      host: destination.address,
      port,
      method: incoming.method,
      path: `${url.pathname}${url.search}`,
      headers,
      setHost: false,
      agent: false,
    });
    upstream.once("socket", holdFd);
    const exchange = openExchange(child, () => {
      upstream.destroy();
      response.destroy();
    });
    let timedOut = false;
    const cancelDeadline = timers.after(upstreamDeadlineMs, () => {
      timedOut = true;
      upstream.destroy();
      answer(response, 504, `egress to ${target} failed: it did not answer within ${upstreamDeadlineMs / 1000} s`);
    });
    upstream.on("response", (reply) => {
      cancelDeadline();
      exchange.started();
      const replyHeaders = { ...reply.headers };
      for (const name of hopByHop) delete replyHeaders[name];
      response.writeHead(reply.statusCode ?? 502, replyHeaders);
      relay(reply, response, exchange.counted);
    });
    upstream.on("error", (error) => {
      cancelDeadline();
      exchange.close();
      if (timedOut) return;
      if (response.headersSent) response.destroy();
      else answer(response, 502, `egress to ${target} failed: it did not answer (${error.message})`);
    });
    response.once("close", () => {
      exchange.close();
      upstream.destroy();
    });
    relay(incoming, upstream, exchange.counted);
  }

  async function tunnel(child: ChildState, incoming: IncomingMessage, client: Socket, head: Buffer): Promise<void> {
    const refuse = (status: number, reason: string): void => refuseSocket(client, status, reason);
    const parsed = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(incoming.url ?? "");
    const host = parsed?.[1];
    const port = Number(parsed?.[2]);
    if (host === undefined || port < 1 || port > 65535)
      return refuse(400, "egress refused: expected CONNECT host:port");
    if (child.budget.usedUp()) return refuse(403, budgetReason);
    const destination = await destinationOf(host, port);
    if (!destination.ok) return refuse(destination.status, destination.reason);
    if (fds + 1 > limits.fdShare) return refuse(503, fdShareReason);
    if (client.destroyed) return;
    const target = formatHostPort(host.replace(/^\[(.*)\]$/, "$1"), port);
    const upstream: Socket = connect(port, destination.address);
    holdFd(upstream);
    const exchange = openExchange(child, () => {
      upstream.destroy();
      client.destroy();
    });
    let connected = false;
    let timedOut = false;
    const cancelDeadline = timers.after(upstreamDeadlineMs, () => {
      timedOut = true;
      upstream.destroy();
      exchange.close();
      refuse(504, `egress to ${target} failed: it did not answer within ${upstreamDeadlineMs / 1000} s`);
    });
    upstream.once("connect", () => {
      cancelDeadline();
      exchange.started();
      connected = true;
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0 && exchange.counted(head.length)) upstream.write(head);
      relay(upstream, client, exchange.counted);
      relay(client, upstream, exchange.counted);
    });
    upstream.on("error", (error) => {
      cancelDeadline();
      exchange.close();
      if (timedOut) return;
      if (!connected) refuse(502, `egress to ${target} failed: it did not answer (${error.message})`);
      else client.destroy();
    });
    upstream.once("close", () => {
      exchange.close();
      if (connected) client.destroySoon();
    });
    client.once("close", () => {
      exchange.close();
      upstream.destroy();
    });
  }

  const http = createServer((incoming, response) => {
    const owner = ownerOf.get(incoming.socket as Socket);
    if (owner === undefined) return answer(response, 502, "egress refused: a connection of no sandbox");
    owner.headArrived();
    forward(owner.child, incoming, response).catch((error: unknown) => {
      logger.error({ err: error }, "egress proxy failed a request");
      if (!response.headersSent) answer(response, 502, "egress failed: the proxy failed");
      else response.destroy();
    });
  });
  http.on("connect", (incoming: IncomingMessage, client: Socket, head: Buffer) => {
    client.on("error", () => client.destroy());
    const owner = ownerOf.get(client);
    if (owner === undefined) return client.destroy();
    owner.headArrived();
    tunnel(owner.child, incoming, client, head).catch((error: unknown) => {
      logger.error({ err: error }, "egress proxy failed a tunnel");
      client.destroy();
    });
  });
  http.on("clientError", (_error, socket: Socket) => {
    if (socket.writable) refuseSocket(socket, 400, "egress refused: the request could not be read as HTTP");
    else socket.destroy();
  });

  /** A connection to a child's socket: counted, given its head deadline, or refused at once when over a limit. */
  function accept(child: ChildState, socket: Socket): void {
    const refusal =
      fds + fdsPerExchange > limits.fdShare
        ? fdShareReason
        : child.connections.size >= limits.connectionsPerChild
          ? `egress refused: this sandbox holds ${limits.connectionsPerChild} connections to the egress proxy, its limit (WEFT_EGRESS_CONNECTIONS)`
          : undefined;
    holdFd(socket);
    if (refusal === undefined) admit(child, socket);
    // As many refused connections linger as a child may hold open ones, within the share; past
    // that, a flood of them is closed at once.
    else if (child.lingering >= limits.connectionsPerChild || fds + 1 > limits.fdShare) {
      refuseSocket(socket, 503, refusal);
    } else {
      child.lingering += 1;
      socket.on("error", () => socket.destroy());
      // The peer's end closes the socket (no half-open sockets); a peer that never ends is cut.
      socket.end(rawAnswer(503, refusal));
      socket.resume();
      const cancelLinger = timers.after(refusalLingerMs, () => socket.destroy());
      socket.once("close", () => {
        cancelLinger();
        child.lingering -= 1;
      });
    }
  }

  /** A connection within the limits: it has `headerTimeoutMs` to send its request head. */
  function admit(child: ChildState, socket: Socket): void {
    child.connections.add(socket);
    const cancelHeadDeadline = timers.after(headerTimeoutMs, () => {
      if (socket.writable && !socket.writableEnded) {
        refuseSocket(
          socket,
          408,
          `egress refused: the request head did not arrive within ${headerTimeoutMs / 1000} s of connecting`,
        );
      } else socket.destroy();
    });
    socket.once("close", () => {
      cancelHeadDeadline();
      child.connections.delete(socket);
    });
    ownerOf.set(socket, { child, headArrived: cancelHeadDeadline });
    http.emit("connection", socket);
  }

  function closeChild(child: ChildState): Promise<void> {
    if (!children.delete(child)) return Promise.resolve();
    for (const cut of [...child.exchanges]) cut();
    for (const socket of child.connections) socket.destroy();
    return new Promise((resolve) => child.server.close(() => resolve()));
  }

  return {
    openChild: (childKey) => {
      opened += 1;
      const socketPath = join(options.directory, `c${opened}.sock`);
      const child: ChildState = {
        key: childKey,
        server: createNetServer(),
        connections: new Set(),
        lingering: 0,
        exchanges: new Set(),
        budget: createEgressByteBudget(limits.bytesPerExecution),
      };
      child.server.on("connection", (socket: Socket) => accept(child, socket));
      child.server.on("error", (error) =>
        logger.error({ err: error, child: childKey }, "a sandbox's egress socket failed"),
      );
      // Node binds and listens on a Unix socket before `listen` returns; only errors come later.
      child.server.listen(socketPath);
      fds += 1;
      child.server.once("close", () => {
        fds -= 1;
      });
      children.add(child);
      return {
        socketPath,
        usage: () => ({ connections: child.connections.size, ...child.budget.usage() }),
        executionStarted: () => child.budget.executionStarted(),
        executionEnded: () => child.budget.executionEnded(),
        close: () => closeChild(child),
      };
    },
    fdsInUse: () => fds,
    close: async () => {
      await Promise.all([...children].map(closeChild));
      http.closeAllConnections();
    },
  };
}
