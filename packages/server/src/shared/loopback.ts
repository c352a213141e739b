import { BlockList, isIP } from "node:net";

const loopback = new BlockList();
loopback.addSubnet("127.0.0.0", 8, "ipv4");
loopback.addAddress("::1", "ipv6");
loopback.addSubnet("::ffff:127.0.0.0", 104, "ipv6");

/**
 * Whether an address (a socket's peer, or the HOST the platform listens on) is on this machine
 * only. `localhost` counts as a host name; any other name does not, since it may resolve anywhere.
 */
export function isLoopbackAddress(address: string): boolean {
  const trimmed = address.trim().replace(/^\[(.*)\]$/, "$1");
  if (trimmed.toLowerCase() === "localhost") return true;
  const family = isIP(trimmed);
  if (family === 0) return false;
  return loopback.check(trimmed, family === 6 ? "ipv6" : "ipv4");
}
