import { isIP, type Server, type Socket } from "node:net";
import type { Logger } from "../../shared/logger.ts";
import type { Timers } from "../../shared/timers.ts";
import { type EgressPolicy, formatHostPort, sandboxEgressRefusal } from "./address-policy.ts";
import type { EgressByteBudget } from "./egress-byte-budget.ts";
import type { EgressLimits } from "./egress-limits.ts";
import type { ResolveHost } from "./resolve-host.ts";

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

/** One sandbox child as the proxy keeps it: its socket, its connections and exchanges, its byte budget. */
export interface ProxiedChild {
  key: string;
  server: Server;
  connections: Set<Socket>;
  /** Connections refused at accept, kept until their peer has read the answer. */
  lingering: number;
  /** Cuts each open tunnel and forwarded request of the child. */
  exchanges: Set<() => void>;
  budget: EgressByteBudget;
}

export type Destination = { ok: true; address: string } | { ok: false; status: 403 | 502; reason: string };

/** The descriptors the proxy holds for every child together: listening sockets, connections, upstream sockets. */
export interface Descriptors {
  inUse(): number;
  /** Counts a descriptor until its socket (or server) closes. */
  hold(closable: { once(event: "close", listener: () => void): unknown }): void;
}

/** What the parts of the egress proxy share: its settings, its descriptors, and the checks of a destination. */
export interface ProxyContext {
  logger: Logger;
  timers: Timers;
  limits: EgressLimits;
  descriptors: Descriptors;
  /** Why a request of a child whose budget is used up is refused. */
  budgetReason: string;
  /** Why a connection past the descriptors' share is refused. */
  fdShareReason: string;
  /** The address to connect to for `rawHost:port`, or why none may be. */
  destinationOf(rawHost: string, port: number): Promise<Destination>;
}

export function countDescriptors(): Descriptors {
  let fds = 0;
  return {
    inUse: () => fds,
    hold: (closable) => {
      fds += 1;
      closable.once("close", () => {
        fds -= 1;
      });
    },
  };
}

/**
 * Resolves names itself and hands back the very address it checked, which the proxy connects to
 * without resolving again: a name that answers with a public address to the check and a private one
 * to the connect (DNS rebinding) gets nowhere.
 */
export function destinationCheck(
  policy: EgressPolicy,
  resolveHost: ResolveHost,
  logger: Logger,
): ProxyContext["destinationOf"] {
  return async (rawHost, port) => {
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
  };
}
