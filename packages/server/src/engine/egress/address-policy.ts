import { BlockList, isIP } from "node:net";

/** A destination exempt from the egress proxy's refusal: a CIDR, or one host (name or IP) and port. */
export type EgressAllowEntry =
  | { kind: "cidr"; address: string; prefix: number; family: "ipv4" | "ipv6" }
  | { kind: "hostPort"; host: string; port: number };

type Range = readonly [kind: string, address: string, prefix: number];

/**
 * Destinations workflow code may not reach through the egress proxy, named for the refusal. Node's
 * BlockList also matches IPv4-mapped IPv6 addresses (::ffff:127.0.0.1) against the IPv4 ranges.
 * Order matters where ranges nest: the first match names the refusal.
 */
const refusedIpv4: readonly Range[] = [
  ["unspecified", "0.0.0.0", 8],
  ["private", "10.0.0.0", 8],
  ["carrier-grade NAT", "100.64.0.0", 10],
  ["loopback", "127.0.0.0", 8],
  ["link-local", "169.254.0.0", 16],
  ["private", "172.16.0.0", 12],
  ["IETF protocol assignment", "192.0.0.0", 24],
  ["documentation", "192.0.2.0", 24],
  ["6to4 relay anycast", "192.88.99.0", 24],
  ["private", "192.168.0.0", 16],
  ["benchmarking", "198.18.0.0", 15],
  ["documentation", "198.51.100.0", 24],
  ["documentation", "203.0.113.0", 24],
  ["multicast", "224.0.0.0", 4],
  ["broadcast", "255.255.255.255", 32],
  ["reserved", "240.0.0.0", 4],
];

const refusedIpv6: readonly Range[] = [
  ["unspecified", "::", 128],
  ["loopback", "::1", 128],
  // Addresses that embed an IPv4 address a gateway may route to (an internal one included).
  ["IPv4-compatible", "::", 96],
  ["NAT64", "64:ff9b::", 96],
  ["NAT64", "64:ff9b:1::", 48],
  ["discard-only", "100::", 64],
  ["Teredo", "2001::", 32],
  ["documentation", "2001:db8::", 32],
  ["6to4", "2002::", 16],
  ["unique-local", "fc00::", 7],
  ["link-local", "fe80::", 10],
  ["site-local", "fec0::", 10],
  ["multicast", "ff00::", 8],
];

const classes: readonly { kind: string; list: BlockList }[] = [
  ...refusedIpv4.map(([kind, address, prefix]) => ({ kind, list: subnet(address, prefix, "ipv4") })),
  ...refusedIpv6.map(([kind, address, prefix]) => ({ kind, list: subnet(address, prefix, "ipv6") })),
];

function subnet(address: string, prefix: number, family: "ipv4" | "ipv6"): BlockList {
  const list = new BlockList();
  list.addSubnet(address, prefix, family);
  return list;
}

function familyOf(address: string): "ipv4" | "ipv6" {
  return isIP(address) === 4 ? "ipv4" : "ipv6";
}

/** The kind of non-public range an IP address falls in ("loopback", "private", …), or undefined for a public address. */
export function nonPublicRangeOf(address: string): string | undefined {
  if (isIP(address) === 0) throw new TypeError(`${address} is not an IP address`);
  const family = familyOf(address);
  return classes.find((range) => range.list.check(address, family))?.kind;
}

/** One destination the proxy is asked for: the name as requested, its port, and the address it would connect to. */
export interface EgressTarget {
  host: string;
  port: number;
  address: string;
}

/** A refusal names the range the address falls in (`kind`, e.g. "loopback") beside the platform's own phrasing. */
export type EgressVerdict = { allowed: true } | { allowed: false; reason: string; kind: string };

export interface EgressPolicy {
  check(target: EgressTarget): EgressVerdict;
}

/** Public addresses pass; any other passes only when an entry of WEFT_SANDBOX_EGRESS_ALLOW exempts it. */
export function createEgressPolicy(allow: readonly EgressAllowEntry[]): EgressPolicy {
  const allowedSubnets = new BlockList();
  const allowedHostPorts = new Set<string>();
  for (const entry of allow) {
    if (entry.kind === "cidr") allowedSubnets.addSubnet(entry.address, entry.prefix, entry.family);
    else allowedHostPorts.add(`${entry.host}|${entry.port}`);
  }
  return {
    check: ({ host, port, address }) => {
      const kind = nonPublicRangeOf(address);
      if (kind === undefined) return { allowed: true };
      const exempt =
        allowedSubnets.check(address, familyOf(address)) ||
        allowedHostPorts.has(`${host.toLowerCase()}|${port}`) ||
        allowedHostPorts.has(`${address}|${port}`);
      if (exempt) return { allowed: true };
      const named = host === address ? address : `${host} (${address})`;
      return { allowed: false, kind, reason: `${named} is a ${kind} address, which workflow code may not reach` };
    },
  };
}

/** `host:port`, with an IPv6 address in brackets. */
export function formatHostPort(host: string, port: number): string {
  return `${host.includes(":") ? `[${host}]` : host}:${port}`;
}

/**
 * The egress proxy's refusal of a destination, as workflow code reads it in its own error: the
 * destination, the kind of address, and the settings that decide it.
 */
export function sandboxEgressRefusal(target: EgressTarget, kind: string): string {
  const resolved = target.host === target.address ? "" : `${target.host} resolves to ${target.address}, and `;
  return `egress to ${formatHostPort(target.host, target.port)} refused: ${resolved}${kind} addresses are not reachable from workflow code (WEFT_SANDBOX_EGRESS=public; see WEFT_SANDBOX_EGRESS_ALLOW)`;
}
