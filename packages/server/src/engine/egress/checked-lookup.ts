import { isIP, type LookupFunction } from "node:net";
import type { EgressPolicy } from "./address-policy.ts";
import type { ResolveHost } from "./egress-proxy.ts";

/** A destination the policy refuses, or a name with no address: not worth trying again at once. */
export class EgressRefusedError extends Error {
  override readonly name = "EgressRefusedError";
}

/**
 * A `lookup` for a connection the platform makes on a caller's behalf: every address the name
 * resolves to must pass the policy (public, or exempted by the operator), and the socket connects
 * to a checked one, so a name that resolves differently a moment later (DNS rebinding) cannot lead
 * it elsewhere.
 */
export function checkedLookup(resolveHost: ResolveHost, policy: EgressPolicy, port: number): LookupFunction {
  return (hostname, options, callback) => {
    const done = callback as (
      error: Error | null,
      address: string | { address: string; family: number }[],
      family?: number,
    ) => void;
    const host = hostname.replace(/^\[(.*)\]$/, "$1");
    (isIP(host) === 0 ? resolveHost(host) : Promise.resolve([host]))
      .then((addresses) => {
        const refused = addresses
          .map((address) => policy.check({ host, port, address }))
          .find((verdict) => !verdict.allowed);
        if (addresses.length === 0) throw new EgressRefusedError(`${host} has no address`);
        if (refused !== undefined && !refused.allowed) throw new EgressRefusedError(refused.reason);
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

/**
 * Node connects to a literal IP without calling `lookup`, so a URL that names one is checked here,
 * before any connection: the reason the policy refuses it, or undefined.
 */
export function literalAddressRefusal(url: URL, policy: EgressPolicy, port: number): string | undefined {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (isIP(host) === 0) return undefined;
  const verdict = policy.check({ host, port, address: host });
  return verdict.allowed ? undefined : verdict.reason;
}
