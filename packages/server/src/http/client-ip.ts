import { BlockList, isIP } from "node:net";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Context } from "hono";

/** Decides which address a request came from; reused by every surface that limits per client. */
export interface ClientIpResolver {
  /** The client address of a request, given its socket peer and its `X-Forwarded-For` header. */
  resolve(peerAddress: string | undefined, forwardedFor: string | undefined): string;
}

/** `::ffff:10.0.0.1` and `10.0.0.1` are one client. */
function normalizeAddress(address: string): string {
  const trimmed = address.trim();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(trimmed);
  return mapped?.[1] ?? trimmed.toLowerCase();
}

function toBlockList(trustedProxies: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of trustedProxies) {
    const [address = "", prefix] = entry.split("/");
    const type = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (prefix === undefined) list.addAddress(normalizeAddress(address), type);
    else list.addSubnet(normalizeAddress(address), Number(prefix), type);
  }
  return list;
}

/**
 * The client is the socket peer unless that peer is a trusted proxy; then `X-Forwarded-For` is
 * read from the right, skipping trusted proxies, and the first other address is the client. An
 * untrusted peer cannot choose its address by sending the header.
 */
export function createClientIpResolver(trustedProxies: readonly string[]): ClientIpResolver {
  const trusted = toBlockList(trustedProxies);
  const isTrusted = (address: string) => {
    const family = isIP(address);
    return family !== 0 && trusted.check(address, family === 6 ? "ipv6" : "ipv4");
  };
  return {
    resolve: (peerAddress, forwardedFor) => {
      const peer = normalizeAddress(peerAddress ?? "unknown");
      if (trustedProxies.length === 0 || !isTrusted(peer) || forwardedFor === undefined) return peer;
      const hops = forwardedFor
        .split(",")
        .map(normalizeAddress)
        .filter((hop) => hop !== "");
      for (let index = hops.length - 1; index >= 0; index -= 1) {
        const hop = hops[index] as string;
        if (isIP(hop) === 0) return peer;
        if (!isTrusted(hop)) return hop;
      }
      return hops[0] ?? peer;
    },
  };
}

/** The client address of a Hono request served by `@hono/node-server`. */
export function clientIpOf(c: Context, resolver: ClientIpResolver): string {
  return resolver.resolve(getConnInfo(c).remote.address, c.req.header("x-forwarded-for"));
}
