import { readdirSync, readFileSync } from "node:fs";

/** The kernel's unit of the times in `/proc/<pid>/stat` (USER_HZ), the same on every Linux architecture Node runs on. */
const ticksPerSecond = 100;

/**
 * Milliseconds of CPU a process has used in its own threads (user and system), from
 * `/proc/<pid>/stat`; `undefined` where there is no such file (another OS, or the process is gone).
 */
export function processCpuMs(pid: number): number | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name, in parentheses, may hold blanks: the fields that follow are counted after it.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  return Number.isFinite(user) && Number.isFinite(system) ? ((user + system) * 1000) / ticksPerSecond : undefined;
}

/** The ids of a process's children (the sandboxes a platform started), from `/proc`; none where it cannot be read. */
export function childProcessIds(pid: number): number[] {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const thread of threads) {
    try {
      const text = readFileSync(`/proc/${pid}/task/${thread}/children`, "utf8").trim();
      if (text !== "") children.push(...text.split(" ").map(Number));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return children;
}

/** What the sandboxes of one platform used of the CPU, from their parent cgroup. */
export interface SandboxGroupCpu {
  usedMs: number;
  /** How long the kernel held the group back for its CPU quota. */
  throttledMs: number;
}

function readNumber(path: string): number | undefined {
  try {
    const value = Number(readFileSync(path, "utf8").trim());
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function statField(path: string, field: string): number | undefined {
  try {
    const line = readFileSync(path, "utf8")
      .split("\n")
      .find((candidate) => candidate.startsWith(`${field} `));
    return line === undefined ? undefined : Number(line.slice(field.length + 1));
  } catch {
    return undefined;
  }
}

/**
 * The CPU the platform's sandboxes used, read from the group the platform makes for them
 * (`weft-sandboxes-<pid>` beside or under its own group, `engine/sandbox/sandbox-cgroups.ts`) on
 * the usual mounts under /sys/fs/cgroup; `undefined` where there is no such group (cgroups off).
 */
export function sandboxGroupCpu(platformPid: number): SandboxGroupCpu | undefined {
  let lines: string[];
  try {
    lines = readFileSync(`/proc/${platformPid}/cgroup`, "utf8").trim().split("\n");
  } catch {
    return undefined;
  }
  const group = `weft-sandboxes-${platformPid}`;
  const pathOf = (controller: string) =>
    lines.map((line) => line.split(":")).find(([, controllers]) => controllers?.split(",").includes(controller))?.[2];
  const cpuacctPath = pathOf("cpuacct");
  const cpuPath = pathOf("cpu");
  if (cpuacctPath !== undefined && cpuPath !== undefined) {
    const base = (path: string) => (path === "/" ? "" : path);
    const usedNs = readNumber(`/sys/fs/cgroup/cpuacct${base(cpuacctPath)}/${group}/cpuacct.usage`);
    const throttledNs = statField(`/sys/fs/cgroup/cpu${base(cpuPath)}/${group}/cpu.stat`, "throttled_time");
    if (usedNs !== undefined && throttledNs !== undefined)
      return { usedMs: usedNs / 1e6, throttledMs: throttledNs / 1e6 };
  }
  const unified = lines.find((line) => line.startsWith("0::"))?.slice(3);
  if (unified === undefined) return undefined;
  // Under v2 the platform moves itself into a leaf of its group, beside the sandboxes' group.
  const parent = unified.endsWith("/weft-platform") ? unified.slice(0, -"/weft-platform".length) : unified;
  const stat = `/sys/fs/cgroup${parent === "/" ? "" : parent}/${group}/cpu.stat`;
  const usedUs = statField(stat, "usage_usec");
  const throttledUs = statField(stat, "throttled_usec");
  return usedUs === undefined || throttledUs === undefined
    ? undefined
    : { usedMs: usedUs / 1000, throttledMs: throttledUs / 1000 };
}
