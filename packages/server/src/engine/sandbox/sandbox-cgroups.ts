import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import type { Logger } from "../../shared/logger.ts";
import { systemTimers, type Timers } from "../../shared/timers.ts";
import { type CgroupFs, errorCode, systemCgroupFs } from "./cgroup-fs.ts";
import {
  type CgroupLayout,
  chooseCgroupLayout,
  layoutHierarchies,
  parseCgroupMounts,
  parseProcCgroup,
  platformLeafName,
  requiredControllers,
} from "./cgroup-layout.ts";
import { cpuSharesOfWeight, groupMemoryMb, type SandboxCgroupLimits, sandboxCgroupLimits } from "./cgroup-limits.ts";
import type { SerializedError } from "./protocol.ts";
import type { SandboxCgroupsMode } from "./sandbox-config.ts";

/** The cgroups the sandboxes run in, decided at start-up: where their groups go, and their limits. */
export interface SandboxCgroups {
  layout: CgroupLayout;
  limits: SandboxCgroupLimits;
}

export type CgroupResolution =
  | { kind: "enabled"; cgroups: SandboxCgroups }
  | { kind: "off" }
  /** `auto` without usable cgroups: the sandboxes run without, and a warning says what is unbounded. */
  | { kind: "fallback"; warning: string }
  /** `on` without usable cgroups: the platform must not start. */
  | { kind: "refused"; message: string };

/** What the cgroups are decided and made from; `systemCgroupEnvironment()` reads this machine's. */
export interface CgroupEnvironment {
  fs: CgroupFs;
  /** The text of `/proc/self/cgroup` and `/proc/self/mountinfo` (empty where there are none). */
  procSelfCgroup: string;
  mountinfo: string;
  /** This process's id, which names its parent group. */
  pid: number;
  cores: number;
  /** Whether a process of that id runs (a group named after a dead one is stale). */
  isAlive(pid: number): boolean;
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

export function systemCgroupEnvironment(): CgroupEnvironment {
  return {
    fs: systemCgroupFs,
    procSelfCgroup: readOrEmpty("/proc/self/cgroup"),
    mountinfo: readOrEmpty("/proc/self/mountinfo"),
    pid: process.pid,
    cores: availableParallelism(),
    isAlive: (pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch (error) {
        return errorCode(error) !== "ESRCH";
      }
    },
  };
}

/** What `/healthz` and the start-up line say about the cgroups in force. */
export function cgroupsInForce(isolation: { cgroups?: SandboxCgroups | undefined }): "v1" | "v2" | "off" {
  return isolation.cgroups?.layout.version ?? "off";
}

const parentPrefix = "weft-sandboxes-";
const enableControllers = requiredControllers.map((controller) => `+${controller}`).join(" ");

function parentName(pid: number): string {
  return `${parentPrefix}${pid}`;
}

function makeDirIfAbsent(fs: CgroupFs, path: string): void {
  try {
    fs.makeDir(path);
  } catch (error) {
    if (errorCode(error) !== "EEXIST") throw error;
  }
}

/**
 * Under v2 a group with controllers for its children may hold no process itself (but at the root):
 * when enabling them is refused for that, the processes of our group move into a leaf beside the
 * sandboxes' groups first.
 */
function enableV2Controllers(fs: CgroupFs, base: string): void {
  const control = join(base, "cgroup.subtree_control");
  const enabled = fs.read(control).trim().split(/\s+/);
  if (requiredControllers.every((controller) => enabled.includes(controller))) return;
  try {
    fs.write(control, enableControllers);
  } catch (error) {
    if (errorCode(error) !== "EBUSY") throw error;
    const leaf = join(base, platformLeafName);
    makeDirIfAbsent(fs, leaf);
    for (const pid of fs.read(join(base, "cgroup.procs")).split("\n")) {
      if (pid.trim() === "") continue;
      try {
        fs.write(join(leaf, "cgroup.procs"), pid.trim());
      } catch {
        // The process ended meanwhile.
      }
    }
    fs.write(control, enableControllers);
  }
}

/** v1 refuses a child a CPU quota above its parent's: the sandboxes get no more than our own group has. */
function withinOwnCpuQuota(fs: CgroupFs, layout: CgroupLayout, limits: SandboxCgroupLimits): SandboxCgroupLimits {
  if (layout.version !== "v1") return limits;
  const quota = Number(fs.read(join(layout.base.cpu, "cpu.cfs_quota_us")).trim());
  const period = Number(fs.read(join(layout.base.cpu, "cpu.cfs_period_us")).trim());
  if (!(quota > 0 && period > 0)) return limits;
  const available = Math.floor((quota / period) * limits.cpuPeriodUs);
  const totalCpuQuotaUs = Math.min(limits.totalCpuQuotaUs, available);
  return { ...limits, totalCpuQuotaUs, sandboxCpuQuotaUs: Math.min(limits.sandboxCpuQuotaUs, totalCpuQuotaUs) };
}

/** Makes (or refreshes) this process's parent group in each hierarchy, with the sandboxes' total CPU. */
function ensureParentGroup(fs: CgroupFs, cgroups: SandboxCgroups, pid: number): void {
  const { layout, limits } = cgroups;
  if (layout.version === "v2") {
    const parent = join(layout.base, parentName(pid));
    makeDirIfAbsent(fs, parent);
    fs.write(join(parent, "cgroup.subtree_control"), enableControllers);
    fs.write(join(parent, "cpu.max"), `${limits.totalCpuQuotaUs} ${limits.cpuPeriodUs}`);
    fs.write(join(parent, "cpu.weight"), String(limits.cpuWeight));
    return;
  }
  for (const { dir } of layoutHierarchies(layout)) makeDirIfAbsent(fs, join(dir, parentName(pid)));
  const cpu = join(layout.base.cpu, parentName(pid));
  fs.write(join(cpu, "cpu.cfs_period_us"), String(limits.cpuPeriodUs));
  fs.write(join(cpu, "cpu.cfs_quota_us"), String(limits.totalCpuQuotaUs));
  fs.write(join(cpu, "cpu.shares"), String(cpuSharesOfWeight(limits.cpuWeight)));
}

/** Removes the empty parent groups (and their empty groups) of platform processes that are gone. */
function removeStaleGroups(env: CgroupEnvironment, layout: CgroupLayout): void {
  for (const { dir } of layoutHierarchies(layout)) {
    let names: string[] = [];
    try {
      names = env.fs.listDirs(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      const owner = name.startsWith(parentPrefix) ? Number(name.slice(parentPrefix.length)) : Number.NaN;
      if (!Number.isInteger(owner) || owner === env.pid || env.isAlive(owner)) continue;
      const parent = join(dir, name);
      try {
        for (const group of env.fs.listDirs(parent)) env.fs.removeDir(join(parent, group));
        env.fs.removeDir(parent);
      } catch {
        // Processes still run in it: left alone.
      }
    }
  }
}

function explain(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function fallbackWarning(problem: string): string {
  return [
    `Sandbox cgroups are not in force (${problem}).`,
    "Each sandbox's CPU time is then bounded only by its attempt's timeout, its threads and processes",
    "by nothing, and its memory only by the memory watchdog and the size of its tmpfs.",
    "To bound them, run the platform as root where cgroup v1's cpu, memory and pids hierarchies are",
    "mounted writable, or in a cgroup v2 subtree delegated to it (systemd: Delegate=yes).",
    "Set WEFT_SANDBOX_CGROUPS=off to accept this and silence the warning, or WEFT_SANDBOX_CGROUPS=on",
    "to refuse to start without them.",
  ].join("\n");
}

/**
 * Decides the cgroups for WEFT_SANDBOX_CGROUPS: finds a usable layout, removes stale groups of
 * platform processes that died, and makes this process's parent group (which proves the layout
 * works: a cgroup file system mounted read-only, or a controller that refuses a limit, fails here).
 */
export function resolveSandboxCgroups(
  mode: SandboxCgroupsMode,
  env: CgroupEnvironment = systemCgroupEnvironment(),
): CgroupResolution {
  if (mode === "off") return { kind: "off" };
  let problem: string;
  const choice = chooseCgroupLayout({
    entries: parseProcCgroup(env.procSelfCgroup),
    mounts: parseCgroupMounts(env.mountinfo),
    controllersOf: (dir) => {
      try {
        return env.fs.read(join(dir, "cgroup.controllers")).trim().split(/\s+/);
      } catch {
        return undefined;
      }
    },
    writable: (path) => env.fs.writable(path),
  });
  if (choice.ok) {
    const { layout } = choice;
    try {
      if (layout.version === "v2") enableV2Controllers(env.fs, layout.base);
      const cgroups = { layout, limits: withinOwnCpuQuota(env.fs, layout, sandboxCgroupLimits(env.cores)) };
      removeStaleGroups(env, layout);
      ensureParentGroup(env.fs, cgroups, env.pid);
      return { kind: "enabled", cgroups };
    } catch (error) {
      problem = `cgroup ${layout.version}: the sandboxes' group could not be made: ${explain(error)}`;
    }
  } else {
    problem = choice.problem;
  }
  if (mode === "on") {
    return {
      kind: "refused",
      message: `WEFT_SANDBOX_CGROUPS=on but no cgroups can bound the sandboxes here (${problem}): run as root with cgroup v1's cpu, memory and pids hierarchies writable, or in a delegated cgroup v2 subtree, or set WEFT_SANDBOX_CGROUPS=auto`,
    };
  }
  return { kind: "fallback", warning: fallbackWarning(problem) };
}

/** One sandbox process tree's group. */
export interface SandboxGroup {
  /**
   * The launch, run through a shell that writes its own pid into the group before it execs the
   * command: the sandbox and all it forks start inside, before any of its code runs.
   */
  wrap(launch: { command: string; args: string[] }): { command: string; args: string[] };
  /** Once the process exited: why the group ended it, if it did; then the group is removed. */
  release(): SerializedError | undefined;
}

export interface SandboxCgroupGroups {
  /** Makes the group of one sandbox, its memory limit set for a sandbox of `memoryMb`. */
  create(memoryMb: number): SandboxGroup;
  /** Removes what is left: groups being removed, and this process's parent group once empty. */
  close(): Promise<void>;
}

export interface SandboxCgroupDependencies {
  logger: Logger;
  fs?: CgroupFs | undefined;
  pid?: number | undefined;
  timers?: Timers | undefined;
  /** Ends a process left in a group after the sandbox exited (`process.kill` by default). */
  kill?: ((pid: number) => void) | undefined;
}

/** A group lingers while its last processes end; after this long in all it is left behind, with a warning. */
const removeRetryMs = 10;
const maxRemoveAttempts = 100;

function shellQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** How many processes the group's OOM killer ended: v2 counts them in `memory.events`, v1 in `memory.oom_control`. */
function oomKills(fs: CgroupFs, memoryGroup: string, version: "v1" | "v2"): number {
  try {
    const text = fs.read(join(memoryGroup, version === "v2" ? "memory.events" : "memory.oom_control"));
    return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/** Removes what it can of a group's directories; ends the processes still in the others. Answers those left. */
function removeGroupOnce(fs: CgroupFs, kill: (pid: number) => void, dirs: string[]): string[] {
  const left = dirs.filter((dir) => {
    try {
      fs.removeDir(dir);
      return false;
    } catch (error) {
      return errorCode(error) !== "ENOENT";
    }
  });
  for (const dir of left) {
    try {
      for (const task of fs.read(join(dir, "cgroup.procs")).split("\n")) {
        if (/^\d+$/.test(task.trim())) kill(Number(task.trim()));
      }
    } catch {
      // Nothing to read: the next attempt tells.
    }
  }
  return left;
}

/** Writes a new group's limits: its memory (for a sandbox of `memoryMb`), its CPU quota and its tasks. */
function writeGroupLimits(
  fs: CgroupFs,
  cgroups: SandboxCgroups,
  group: (controller: string) => string,
  memoryMb: number,
): void {
  const { layout, limits } = cgroups;
  const memoryBytes = String(groupMemoryMb(limits, memoryMb) * 1024 * 1024);
  if (layout.version === "v2") {
    fs.write(join(group("memory"), "memory.max"), memoryBytes);
    fs.write(join(group("cpu"), "cpu.max"), `${limits.sandboxCpuQuotaUs} ${limits.cpuPeriodUs}`);
  } else {
    fs.write(join(group("memory"), "memory.limit_in_bytes"), memoryBytes);
    fs.write(join(group("cpu"), "cpu.cfs_period_us"), String(limits.cpuPeriodUs));
    fs.write(join(group("cpu"), "cpu.cfs_quota_us"), String(limits.sandboxCpuQuotaUs));
  }
  fs.write(join(group("pids"), "pids.max"), String(limits.pidsMax));
}

/** The groups of this process's sandboxes, one per process tree, under the parent group. */
export function openSandboxCgroups(cgroups: SandboxCgroups, deps: SandboxCgroupDependencies): SandboxCgroupGroups {
  const fs = deps.fs ?? systemCgroupFs;
  const pid = deps.pid ?? process.pid;
  const timers = deps.timers ?? systemTimers;
  const kill =
    deps.kill ??
    ((target: number) => {
      try {
        process.kill(target, "SIGKILL");
      } catch {
        // Gone already.
      }
    });
  const { layout, limits } = cgroups;
  const hierarchies = layoutHierarchies(layout);
  const parentDirs = hierarchies.map(({ dir }) => join(dir, parentName(pid)));
  /** Groups made and not released yet. */
  const live = new Set<string[]>();
  const removals = new Set<Promise<void>>();

  const removeOnce = (dirs: string[]) => removeGroupOnce(fs, kill, dirs);

  async function remove(dirs: string[]): Promise<void> {
    let left = removeOnce(dirs);
    for (let attempt = 1; left.length > 0 && attempt < maxRemoveAttempts; attempt++) {
      await new Promise<void>((resolve) => timers.after(removeRetryMs, resolve));
      left = removeOnce(left);
    }
    if (left.length > 0) deps.logger.warn({ groups: left }, "a sandbox's cgroup could not be removed");
  }

  function startRemoval(dirs: string[]): void {
    live.delete(dirs);
    const removal = remove(dirs).finally(() => removals.delete(removal));
    removals.add(removal);
  }

  return {
    create: (memoryMb) => {
      // Made again if it went: another platform's start-up may sweep it as stale while it is empty.
      ensureParentGroup(fs, cgroups, pid);
      const name = randomBytes(6).toString("hex");
      const dirs = parentDirs.map((parent) => join(parent, name));
      const group = (controller: string) =>
        dirs[hierarchies.findIndex((hierarchy) => hierarchy.controllers.includes(controller))] ?? "";
      try {
        for (const dir of dirs) fs.makeDir(dir);
        writeGroupLimits(fs, cgroups, group, memoryMb);
      } catch (error) {
        removeOnce(dirs);
        throw error;
      }
      live.add(dirs);
      return {
        wrap: (launch) => {
          const enter = dirs.map((dir) => `echo $$ > ${shellQuoted(join(dir, "cgroup.procs"))}`).join(" && ");
          return { command: "/bin/sh", args: ["-c", `${enter} && exec "$0" "$@"`, launch.command, ...launch.args] };
        },
        release: () => {
          const killed = oomKills(fs, group("memory"), layout.version) > 0;
          startRemoval(dirs);
          if (!killed) return undefined;
          return {
            name: "OutOfMemoryError",
            message: `the workflow process used more than its memory limit of ${groupMemoryMb(limits, memoryMb)} MiB (cgroup) and was stopped`,
          };
        },
      };
    },
    close: async () => {
      // Groups of processes never seen to exit: whatever still runs in them is ended.
      for (const dirs of [...live]) startRemoval(dirs);
      await Promise.all([...removals]);
      for (const parent of parentDirs) {
        try {
          fs.removeDir(parent);
        } catch {
          // Another sandbox host of this process still has groups in it, or it is gone already.
        }
      }
    },
  };
}
