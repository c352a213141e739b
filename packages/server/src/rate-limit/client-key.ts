import { isIP } from "node:net";
import type { Context } from "hono";
import { type ClientIpResolver, clientIpOf } from "../http/client-ip.ts";

/** The 16-bit groups of an IPv6 address, `::` expanded and a trailing dotted quad read as two groups. */
function ipv6Groups(address: string): number[] {
  const [head = "", tail] = address.split("::");
  const parse = (part: string): number[] =>
    part === ""
      ? []
      : part.split(":").flatMap((group) => {
          if (!group.includes(".")) return [Number.parseInt(group, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = group.split(".").map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const before = parse(head);
  const after = tail === undefined ? [] : parse(tail);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

/**
 * What a rate limit counts as one client: an IPv4 address, or the /64 network of an IPv6 one. An
 * IPv6 host is normally given a whole /64 and can pick any of its 2^64 addresses, so counting
 * addresses would give it a fresh budget per request.
 */
export function rateLimitClientKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const network = ipv6Groups(address.toLowerCase().split("%")[0] ?? "").slice(0, 4);
  return `${network.map((group) => group.toString(16)).join(":")}::/64`;
}

/** The rate-limit key of a request's client (see `client-ip.ts` for how its address is decided). */
export function clientKeyOf(c: Context, clientIps: ClientIpResolver): string {
  return rateLimitClientKey(clientIpOf(c, clientIps));
}
