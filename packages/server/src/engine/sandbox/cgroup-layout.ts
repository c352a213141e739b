import { basename, dirname, join, resolve } from "node:path";

/** One line of `/proc/self/cgroup`: a hierarchy, its controllers (none for v2's `0::`) and our path in it. */
export interface ProcCgroupEntry {
  hierarchyId: string;
  controllers: string[];
  path: string;
}

/** A cgroup file system mounted on the host, from `/proc/self/mountinfo`. */
export interface CgroupMount {
  fsType: "cgroup" | "cgroup2";
  /** The group of the hierarchy this mount shows at its mount point (`/` unless a subtree is bind-mounted). */
  root: string;
  mountPoint: string;
  /** The super options: v1 names its controllers there (`rw,cpu,cpuacct`). */
  options: string[];
}

/** The controllers the sandboxes are bounded with. */
export const requiredControllers = ["cpu", "memory", "pids"] as const;
export type RequiredController = (typeof requiredControllers)[number];

/**
 * Where the platform's sandbox groups are made: under the group this process is in, in each
 * hierarchy. v1 may split the controllers over several hierarchies; `cpuacct`, when one is
 * writable, is there only to account the CPU time the sandboxes used.
 */
export type CgroupLayout =
  | { version: "v2"; base: string }
  | { version: "v1"; base: Record<RequiredController, string> & { cpuacct?: string | undefined } };

/** The leaf the platform moves itself into under v2, where a group with child groups may hold no process. */
export const platformLeafName = "weft-platform";

export function parseProcCgroup(text: string): ProcCgroupEntry[] {
  const entries: ProcCgroupEntry[] = [];
  for (const line of text.split("\n")) {
    const match = /^(\d+):([^:]*):(\/.*)$/.exec(line.trim());
    if (match === null) continue;
    const [, hierarchyId = "", controllers = "", path = "/"] = match;
    entries.push({ hierarchyId, controllers: controllers === "" ? [] : controllers.split(","), path });
  }
  return entries;
}

/** mountinfo escapes blanks and backslashes in paths as octal (`\040`). */
function unescapeMountPath(path: string): string {
  return path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)));
}

export function parseCgroupMounts(mountinfo: string): CgroupMount[] {
  const mounts: CgroupMount[] = [];
  for (const line of mountinfo.split("\n")) {
    const fields = line.trim().split(" ");
    // id, parent, major:minor, root, mount point, options, optional fields…, "-", type, source, super options
    const separator = fields.indexOf("-", 6);
    if (separator < 0) continue;
    const fsType = fields[separator + 1];
    if (fsType !== "cgroup" && fsType !== "cgroup2") continue;
    mounts.push({
      fsType,
      root: unescapeMountPath(fields[3] ?? "/"),
      mountPoint: unescapeMountPath(fields[4] ?? ""),
      options: (fields[separator + 3] ?? "").split(","),
    });
  }
  return mounts;
}

/** Where `path` of a hierarchy appears under `mount`, or `undefined` if that mount does not show it. */
export function groupDirectory(mount: CgroupMount, path: string): string | undefined {
  const root = mount.root === "/" ? "" : mount.root;
  if (path !== mount.root && !path.startsWith(`${root}/`)) return undefined;
  return resolve(mount.mountPoint, `.${path.slice(root.length)}`);
}

/** What the layout is chosen from, read from the cgroup file system (tests hand in their own). */
export interface CgroupFacts {
  entries: ProcCgroupEntry[];
  mounts: CgroupMount[];
  /** A v2 group's `cgroup.controllers`, or `undefined` when it cannot be read. */
  controllersOf(dir: string): string[] | undefined;
  writable(path: string): boolean;
}

export type CgroupLayoutChoice = { ok: true; layout: CgroupLayout } | { ok: false; problem: string };

function chooseV2(facts: CgroupFacts): CgroupLayoutChoice {
  const entry = facts.entries.find((candidate) => candidate.hierarchyId === "0" && candidate.controllers.length === 0);
  if (entry === undefined) return { ok: false, problem: "this process is in no cgroup v2 group" };
  const dirs = facts.mounts
    .filter((mount) => mount.fsType === "cgroup2")
    .map((mount) => groupDirectory(mount, entry.path))
    .filter((dir) => dir !== undefined);
  const dir = dirs[0];
  if (dir === undefined) return { ok: false, problem: `its group ${entry.path} is not mounted here` };
  const controllers = facts.controllersOf(dir) ?? [];
  const missing = requiredControllers.filter((controller) => !controllers.includes(controller));
  if (missing.length > 0) {
    return {
      ok: false,
      problem: `${dir} offers ${controllers.length === 0 ? "no controller" : controllers.join(", ")}, not ${missing.join(", ")}`,
    };
  }
  // An earlier start moved the platform into its leaf: the groups stay beside it, in the leaf's parent.
  const base = basename(dir) === platformLeafName ? dirname(dir) : dir;
  const files = [base, join(base, "cgroup.procs"), join(base, "cgroup.subtree_control")];
  const locked = files.filter((file) => !facts.writable(file));
  if (locked.length > 0)
    return { ok: false, problem: `${locked.join(", ")} not writable (not delegated to this process)` };
  return { ok: true, layout: { version: "v2", base } };
}

function v1Directory(facts: CgroupFacts, controller: string): { dir: string } | { problem: string } {
  const entry = facts.entries.find((candidate) => candidate.controllers.includes(controller));
  if (entry === undefined) return { problem: `no ${controller} hierarchy` };
  const dir = facts.mounts
    .filter((mount) => mount.fsType === "cgroup" && mount.options.includes(controller))
    .map((mount) => groupDirectory(mount, entry.path))
    .find((candidate) => candidate !== undefined);
  if (dir === undefined) return { problem: `the ${controller} hierarchy is not mounted here` };
  if (!facts.writable(dir)) return { problem: `${dir} is not writable` };
  return { dir };
}

function chooseV1(facts: CgroupFacts): CgroupLayoutChoice {
  const base: Partial<Record<RequiredController, string>> = {};
  const problems: string[] = [];
  for (const controller of requiredControllers) {
    const found = v1Directory(facts, controller);
    if ("dir" in found) base[controller] = found.dir;
    else problems.push(found.problem);
  }
  const { cpu, memory, pids } = base;
  if (cpu === undefined || memory === undefined || pids === undefined)
    return { ok: false, problem: problems.join(", ") };
  const cpuacct = v1Directory(facts, "cpuacct");
  return {
    ok: true,
    layout: { version: "v1", base: { cpu, memory, pids, cpuacct: "dir" in cpuacct ? cpuacct.dir : undefined } },
  };
}

/** Prefers a v2 subtree with the three controllers, then v1 hierarchies writable for each; pure. */
export function chooseCgroupLayout(facts: CgroupFacts): CgroupLayoutChoice {
  const v2 = chooseV2(facts);
  if (v2.ok) return v2;
  const v1 = chooseV1(facts);
  if (v1.ok) return v1;
  return { ok: false, problem: `cgroup v2: ${v2.problem}; cgroup v1: ${v1.problem}` };
}

/** Each distinct directory of a layout once, with the controllers it serves (v1 may mount several together). */
export function layoutHierarchies(layout: CgroupLayout): { dir: string; controllers: string[] }[] {
  if (layout.version === "v2") return [{ dir: layout.base, controllers: [...requiredControllers] }];
  const byDir = new Map<string, string[]>();
  for (const [controller, dir] of Object.entries(layout.base)) {
    if (dir === undefined) continue;
    byDir.set(dir, [...(byDir.get(dir) ?? []), controller]);
  }
  return [...byDir].map(([dir, controllers]) => ({ dir, controllers }));
}
