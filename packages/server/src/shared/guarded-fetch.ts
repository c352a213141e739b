import { type ClientRequest, request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { type EgressPolicy, nonPublicRangeOf } from "../engine/egress/address-policy.ts";
import type { ResolveHost } from "../engine/egress/resolve-host.ts";
import type { Timers } from "./timers.ts";

/** One request the platform makes to an address a tenant (or an operator) named. */
export interface OutboundRequest {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** The most of the answer's body that is read; a longer body fails the request. 0 reads none: the status is the answer. */
  maxBodyBytes: number;
  /** Connecting, sending and reading the whole answer must end within it. */
  deadlineMs: number;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * A request that went nowhere. `refused` when the address policy refused the destination: its
 * message names the address and its range, which says nothing about what listens there. Any other
 * failure (no answer, a reset, a deadline, a body too large) is for the log only: a caller that
 * showed it to a tenant would tell them which ports are open behind the platform.
 */
export class OutboundError extends Error {
  override readonly name = "OutboundError";
  readonly refused: boolean;
  constructor(refused: boolean, message: string) {
    super(message);
    this.refused = refused;
  }
}

/**
 * Every request the platform makes on a tenant's behalf (federation issuers and their key sets,
 * OAuth client metadata documents, alert webhooks) goes through one of these, so each is held to
 * the same address policy as workflow code's egress, checked against the very address connected
 * to, bounded in bytes and in time, and never follows a redirect.
 */
export interface GuardedFetch {
  request(url: URL, request: OutboundRequest): Promise<OutboundResponse>;
  /** Why the policy refuses the URL's host when it is an IP address; a host name is checked on each request. */
  addressRefusal(url: URL): string | undefined;
  /**
   * Why the policy refuses where the URL leads now: its IP address, or any address its host name
   * resolves to. Undefined when allowed, or when the name does not resolve within `deadlineMs`
   * (each request checks again, on the address it connects to).
   */
  destinationRefusal(url: URL, deadlineMs: number): Promise<string | undefined>;
}

export interface GuardedFetchDependencies {
  policy: EgressPolicy;
  resolveHost: ResolveHost;
  timers: Timers;
}

/** The port a URL is reached on. */
export function portOf(url: URL): number {
  if (url.port !== "") return Number(url.port);
  return url.protocol === "https:" ? 443 : 80;
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

function outboundErrorOf(error: unknown): OutboundError {
  if (error instanceof OutboundError) return error;
  return new OutboundError(false, error instanceof Error ? error.message : String(error));
}

/** Why the policy refuses `address` for `host:port`, in words for whoever named the host; undefined when it may be reached. */
function refusalOf(policy: EgressPolicy, host: string, port: number, address: string): string | undefined {
  if (policy.check({ host, port, address }).allowed) return undefined;
  const named = host === address ? address : `${host} (${address})`;
  return `${named} is a ${nonPublicRangeOf(address) ?? "refused"} address, which the platform does not reach on a tenant's behalf`;
}

/**
 * A `lookup` whose every resolved address must pass the policy: the socket then connects to a
 * checked one, so a name that resolves differently a moment later (DNS rebinding) cannot lead it
 * elsewhere. Node connects to a literal IP without calling it; `request` checks those first.
 */
function checkedLookup(resolveHost: ResolveHost, policy: EgressPolicy, port: number): LookupFunction {
  return (hostname, options, callback) => {
    const done = callback as (
      error: Error | null,
      address: string | { address: string; family: number }[],
      family?: number,
    ) => void;
    const host = hostname.replace(/^\[(.*)\]$/, "$1");
    (isIP(host) === 0 ? resolveHost(host) : Promise.resolve([host]))
      .then((addresses) => {
        if (addresses.length === 0) throw new OutboundError(false, `${host} has no address`);
        for (const address of addresses) {
          const refusal = refusalOf(policy, host, port, address);
          if (refusal !== undefined) throw new OutboundError(true, refusal);
        }
        if (options.all === true) {
          done(
            null,
            addresses.map((address) => ({ address, family: isIP(address) })),
          );
        } else {
          const address = addresses[0] as string;
          done(null, address, isIP(address));
        }
      })
      .catch((error: Error) => done(error, ""));
  };
}

export function createGuardedFetch(deps: GuardedFetchDependencies): GuardedFetch {
  const { policy, resolveHost, timers } = deps;

  const addressRefusal = (url: URL): string | undefined => {
    const host = hostOf(url);
    return isIP(host) === 0 ? undefined : refusalOf(policy, host, portOf(url), host);
  };

  const request = (url: URL, wanted: OutboundRequest): Promise<OutboundResponse> =>
    new Promise((resolve, reject) => {
      if (url.protocol !== "https:" && url.protocol !== "http:") {
        reject(new OutboundError(false, `${url.protocol} is not http or https`));
        return;
      }
      const port = portOf(url);
      const refusal = addressRefusal(url);
      if (refusal !== undefined) {
        reject(new OutboundError(true, refusal));
        return;
      }
      let settled = false;
      let outgoing: ClientRequest | undefined;
      const cancelDeadline = timers.after(wanted.deadlineMs, () =>
        fail(new OutboundError(false, `no complete answer within ${wanted.deadlineMs / 1000} s`)),
      );
      function settle(outcome: () => void): void {
        if (settled) return;
        settled = true;
        cancelDeadline();
        outcome();
      }
      function fail(error: unknown): void {
        settle(() => reject(outboundErrorOf(error)));
        outgoing?.destroy();
      }
      const send = url.protocol === "https:" ? httpsRequest : httpRequest;
      outgoing = send(
        url,
        {
          method: wanted.method ?? "GET",
          headers: wanted.headers,
          // A fresh connection each time: a pooled socket would skip the lookup, and with it the check.
          agent: false,
          lookup: checkedLookup(resolveHost, policy, port),
        },
        (response) => {
          const status = response.statusCode ?? 0;
          response.on("error", fail);
          if (wanted.maxBodyBytes === 0) {
            settle(() => resolve({ status, headers: response.headers, body: Buffer.alloc(0) }));
            response.destroy();
            return;
          }
          const chunks: Buffer[] = [];
          let size = 0;
          response.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > wanted.maxBodyBytes) {
              fail(new OutboundError(false, `the answer is larger than ${wanted.maxBodyBytes} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          response.on("end", () =>
            settle(() => resolve({ status, headers: response.headers, body: Buffer.concat(chunks) })),
          );
        },
      );
      outgoing.on("error", fail);
      outgoing.end(wanted.body);
    });

  return {
    request,
    addressRefusal,
    destinationRefusal: async (url, deadlineMs) => {
      const host = hostOf(url);
      if (isIP(host) !== 0) return addressRefusal(url);
      let cancel = () => {};
      const timedOut = new Promise<readonly string[]>((resolve) => {
        cancel = timers.after(deadlineMs, () => resolve([]));
      });
      const addresses = await Promise.race([resolveHost(host).catch(() => [] as readonly string[]), timedOut]);
      cancel();
      for (const address of addresses) {
        const refusal = refusalOf(policy, host, portOf(url), address);
        if (refusal !== undefined) return refusal;
      }
      return undefined;
    },
  };
}

/**
 * For destinations the operator named (WEFT_TRUSTED_ISSUERS' key sets): any address, since the
 * operator chose it, but with the same bounds on bytes and time.
 */
export const operatorNamedDestinations: EgressPolicy = { check: () => ({ allowed: true }) };
