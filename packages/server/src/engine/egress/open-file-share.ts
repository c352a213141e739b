/** The open-file limits of a process (RLIMIT_NOFILE); `Infinity` stands for "unlimited". */
export interface OpenFileLimits {
  soft: number;
  hard: number;
}

/**
 * Reads the "Max open files" line of /proc/<pid>/limits. Undefined when the text has no such line
 * or it cannot be read as two limits.
 */
export function parseOpenFileLimits(procLimits: string): OpenFileLimits | undefined {
  const line = procLimits.split("\n").find((text) => text.startsWith("Max open files"));
  const match = line === undefined ? null : /^Max open files\s+(\d+|unlimited)\s+(\d+|unlimited)\s/.exec(line);
  if (match === null) return undefined;
  const limit = (text: string | undefined) => (text === "unlimited" ? Number.POSITIVE_INFINITY : Number(text));
  return { soft: limit(match[1]), hard: limit(match[2]) };
}

/**
 * The soft limit to raise to: the hard one, when it is higher and finite (an "unlimited" hard
 * limit still stops at the kernel's nr_open, which prlimit would refuse). Undefined: nothing to do.
 */
export function raisedSoftLimit(limits: OpenFileLimits): number | undefined {
  return Number.isFinite(limits.hard) && limits.hard > limits.soft ? limits.hard : undefined;
}

/** A tunnel or a forwarded request holds two descriptors: the child's connection and the upstream one. */
export const fdsPerExchange = 2;

/**
 * The descriptors the egress proxy may hold for every sandbox together: half of the soft limit.
 * The other half stays with the API's connections, the database, the sandboxes' pipes and the
 * files the platform opens, so no tenant's egress can make another tenant's request fail with
 * EMFILE.
 */
export function egressFdShare(softLimit: number): number {
  if (!Number.isFinite(softLimit)) return Number.MAX_SAFE_INTEGER;
  return Math.max(fdsPerExchange, Math.floor(softLimit / 2));
}
