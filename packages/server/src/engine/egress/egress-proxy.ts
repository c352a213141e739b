import { createServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createNetServer, type Socket } from "node:net";
import { join } from "node:path";
import type { Logger } from "../../shared/logger.ts";
import type { Timers } from "../../shared/timers.ts";
import { formatLimit } from "../limits.ts";
import type { EgressPolicy } from "./address-policy.ts";
import { acceptConnection } from "./child-connections.ts";
import { openTunnel } from "./connect-tunnel.ts";
import { createEgressByteBudget } from "./egress-byte-budget.ts";
import type { EgressLimits } from "./egress-limits.ts";
import { forwardRequest } from "./forwarded-request.ts";
import { answer, refuseSocket } from "./proxy-answers.ts";
import {
  countDescriptors,
  destinationCheck,
  headerTimeoutMs,
  type ProxiedChild,
  type ProxyContext,
} from "./proxy-context.ts";
import type { ResolveHost } from "./resolve-host.ts";

export interface EgressProxyOptions {
  /** A directory only the platform may enter: it holds one socket per child. */
  directory: string;
  policy: EgressPolicy;
  resolveHost: ResolveHost;
  logger: Logger;
  timers: Timers;
  limits: EgressLimits;
}

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

/** Who a connection admitted to the proxy's HTTP server belongs to, and how it says its request head arrived. */
type Owners = WeakMap<Socket, { child: ProxiedChild; headArrived: () => void }>;

/** The HTTP side of the proxy: the requests (http) and tunnels (CONNECT) of the connections it admitted. */
function requestServer(context: ProxyContext, ownerOf: Owners): Server {
  const { logger } = context;
  const http = createServer((incoming, response) => {
    const owner = ownerOf.get(incoming.socket as Socket);
    if (owner === undefined) return answer(response, 502, "egress refused: a connection of no sandbox");
    owner.headArrived();
    forwardRequest(context, owner.child, incoming, response).catch((error: unknown) => {
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
    openTunnel(context, owner.child, incoming, client, head).catch((error: unknown) => {
      logger.error({ err: error }, "egress proxy failed a tunnel");
      client.destroy();
    });
  });
  http.on("clientError", (_error, socket: Socket) => {
    if (socket.writable) refuseSocket(socket, 400, "egress refused: the request could not be read as HTTP");
    else socket.destroy();
  });
  return http;
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
  const { logger, timers, limits } = options;
  const children = new Set<ProxiedChild>();
  const ownerOf: Owners = new WeakMap();
  const context: ProxyContext = {
    logger,
    timers,
    limits,
    descriptors: countDescriptors(),
    budgetReason: `egress budget of this execution used up: ${formatLimit(limits.bytesPerExecution)} (WEFT_EGRESS_MB_PER_EXECUTION)`,
    fdShareReason: `egress refused: the platform's egress proxy holds its share of ${limits.fdShare} file descriptors; try again later`,
    destinationOf: destinationCheck(options.policy, options.resolveHost, logger),
  };
  let opened = 0;

  const http = requestServer(context, ownerOf);

  /** A connection within the limits: it has `headerTimeoutMs` to send its request head. */
  function admit(child: ProxiedChild, socket: Socket): void {
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

  function closeChild(child: ProxiedChild): Promise<void> {
    if (!children.delete(child)) return Promise.resolve();
    for (const cut of [...child.exchanges]) cut();
    for (const socket of child.connections) socket.destroy();
    return new Promise((resolve) => child.server.close(() => resolve()));
  }

  return {
    openChild: (childKey) => {
      opened += 1;
      const socketPath = join(options.directory, `c${opened}.sock`);
      const child: ProxiedChild = {
        key: childKey,
        server: createNetServer(),
        connections: new Set(),
        lingering: 0,
        exchanges: new Set(),
        budget: createEgressByteBudget(limits.bytesPerExecution),
      };
      child.server.on("connection", (socket: Socket) =>
        acceptConnection(context, child, socket, (admitted) => admit(child, admitted)),
      );
      child.server.on("error", (error) =>
        logger.error({ err: error, child: childKey }, "a sandbox's egress socket failed"),
      );
      // Node binds and listens on a Unix socket before `listen` returns; only errors come later.
      child.server.listen(socketPath);
      context.descriptors.hold(child.server);
      children.add(child);
      return {
        socketPath,
        usage: () => ({ connections: child.connections.size, ...child.budget.usage() }),
        executionStarted: () => child.budget.executionStarted(),
        executionEnded: () => child.budget.executionEnded(),
        close: () => closeChild(child),
      };
    },
    fdsInUse: () => context.descriptors.inUse(),
    close: async () => {
      await Promise.all([...children].map(closeChild));
      http.closeAllConnections();
    },
  };
}
