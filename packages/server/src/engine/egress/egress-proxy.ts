import { lookup } from "node:dns/promises";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, request, type ServerResponse } from "node:http";
import { connect, isIP, type Socket } from "node:net";
import type { Duplex } from "node:stream";
import type { Logger } from "../../shared/logger.ts";
import type { Timers } from "../../shared/timers.ts";
import type { EgressPolicy } from "./address-policy.ts";

/** Resolves a host name to every address it has (dns.lookup by default; tests inject their own). */
export type ResolveHost = (hostname: string) => Promise<readonly string[]>;

export const resolveWithSystem: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

export interface EgressProxyOptions {
  /** The Unix socket it listens on, bound into each sandbox. */
  socketPath: string;
  policy: EgressPolicy;
  resolveHost: ResolveHost;
  logger: Logger;
  timers: Timers;
}

/**
 * How long a destination has to accept the connection (CONNECT) or to answer with its headers
 * (http). Without it, a tenant aiming at addresses that never answer would pile up sockets in the
 * worker until the kernel gave up, minutes later.
 */
export const upstreamDeadlineMs = 10_000;

export interface EgressProxy {
  close(): Promise<void>;
}

type Destination = { ok: true; address: string } | { ok: false; status: 403 | 502; reason: string };

const statusText: Record<number, string> = { 400: "Bad Request", 403: "Forbidden", 504: "Gateway Timeout" };

/** Hop-by-hop and proxy-only headers, which a proxy never forwards. */
const hopByHop = ["connection", "keep-alive", "proxy-connection", "proxy-authorization", "te", "trailer", "upgrade"];

/**
 * An HTTP proxy for workflow code: absolute-URI requests for http and CONNECT for https. It
 * resolves names itself and connects to the very address it checked, never resolving again, so a
 * name that answers with a public address to the check and a private one to the connect (DNS
 * rebinding) gets nowhere.
 */
export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  const { policy, resolveHost, logger, timers } = options;

  async function destinationOf(rawHost: string, port: number): Promise<Destination> {
    const host = rawHost.replace(/^\[(.*)\]$/, "$1").toLowerCase();
    let addresses: readonly string[];
    try {
      addresses = isIP(host) === 0 ? await resolveHost(host) : [host];
    } catch {
      return { ok: false, status: 502, reason: `${host} could not be resolved` };
    }
    let firstRefusal: string | undefined;
    for (const address of addresses) {
      const verdict = policy.check({ host, port, address });
      if (verdict.allowed) return { ok: true, address };
      firstRefusal ??= verdict.reason;
    }
    const reason = firstRefusal ?? `${host} has no address`;
    logger.info({ host, port, reason }, "egress refused");
    return { ok: false, status: firstRefusal === undefined ? 502 : 403, reason };
  }

  function answer(response: ServerResponse, status: number, reason: string): void {
    response.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" });
    response.end(`weft egress proxy: ${reason}\n`);
  }

  async function forward(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    let url: URL;
    try {
      url = new URL(incoming.url ?? "");
    } catch {
      return answer(response, 400, "expected an absolute http:// URL (https goes through CONNECT)");
    }
    if (url.protocol !== "http:") return answer(response, 400, "only http:// URLs are proxied; https uses CONNECT");
    const port = url.port === "" ? 80 : Number(url.port);
    const destination = await destinationOf(url.hostname, port);
    if (!destination.ok) return answer(response, destination.status, destination.reason);
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
    let timedOut = false;
    const cancelDeadline = timers.after(upstreamDeadlineMs, () => {
      timedOut = true;
      upstream.destroy();
      answer(response, 504, `${url.host} did not answer within ${upstreamDeadlineMs / 1000} s`);
    });
    upstream.on("response", (reply) => {
      cancelDeadline();
      const replyHeaders = { ...reply.headers };
      for (const name of hopByHop) delete replyHeaders[name];
      response.writeHead(reply.statusCode ?? 502, replyHeaders);
      reply.pipe(response);
    });
    upstream.on("error", (error) => {
      cancelDeadline();
      if (timedOut) return;
      if (response.headersSent) response.destroy();
      else answer(response, 502, `${url.host} did not answer (${error.message})`);
    });
    incoming.pipe(upstream);
  }

  async function tunnel(incoming: IncomingMessage, client: Duplex, head: Buffer): Promise<void> {
    client.on("error", () => client.destroy());
    const refuse = (status: number, reason: string): void => {
      client.end(
        `HTTP/1.1 ${status} ${statusText[status] ?? "Bad Gateway"}\r\n` +
          `content-type: text/plain; charset=utf-8\r\nconnection: close\r\n\r\nweft egress proxy: ${reason}\n`,
      );
    };
    const target = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(incoming.url ?? "");
    const host = target?.[1];
    const port = Number(target?.[2]);
    if (host === undefined || port < 1 || port > 65535) return refuse(400, "expected CONNECT host:port");
    const destination = await destinationOf(host, port);
    if (!destination.ok) return refuse(destination.status, destination.reason);
    const upstream: Socket = connect(port, destination.address);
    let connected = false;
    let timedOut = false;
    const cancelDeadline = timers.after(upstreamDeadlineMs, () => {
      timedOut = true;
      upstream.destroy();
      refuse(504, `${host}:${port} did not answer within ${upstreamDeadlineMs / 1000} s`);
    });
    upstream.once("connect", () => {
      cancelDeadline();
      connected = true;
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", (error) => {
      cancelDeadline();
      if (timedOut) return;
      if (!connected) refuse(502, `${host}:${port} did not answer (${error.message})`);
      else client.destroy();
    });
    client.on("close", () => upstream.destroy());
  }

  const server = createServer((incoming, response) => {
    forward(incoming, response).catch((error: unknown) => {
      logger.error({ err: error }, "egress proxy failed a request");
      if (!response.headersSent) answer(response, 502, "the proxy failed");
    });
  });
  server.on("connect", (incoming: IncomingMessage, client: Duplex, head: Buffer) => {
    tunnel(incoming, client, head).catch((error: unknown) => {
      logger.error({ err: error }, "egress proxy failed a tunnel");
      client.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.socketPath, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
