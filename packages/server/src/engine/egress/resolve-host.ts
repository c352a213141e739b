import { lookup } from "node:dns/promises";

/** Resolves a host name to every address it has (dns.lookup by default; tests inject their own). */
export type ResolveHost = (hostname: string) => Promise<readonly string[]>;

export const resolveWithSystem: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);
