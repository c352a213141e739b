import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type EngineHarness, startEngineHarness } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { CgroupFs } from "../src/engine/sandbox/cgroup-fs.ts";
import {
  type CgroupFacts,
  chooseCgroupLayout,
  parseCgroupMounts,
  parseProcCgroup,
} from "../src/engine/sandbox/cgroup-layout.ts";
import { cpuSharesOfWeight, groupMemoryMb, sandboxCgroupLimits } from "../src/engine/sandbox/cgroup-limits.ts";
import {
  type CgroupEnvironment,
  openSandboxCgroups,
  resolveSandboxCgroups,
  type SandboxCgroups,
} from "../src/engine/sandbox/sandbox-cgroups.ts";
import { startSandboxHost } from "../src/engine/sandbox/sandbox-host.ts";
import { resolveSandboxIsolation, type SandboxIsolation } from "../src/engine/sandbox/sandbox-isolation.ts";
import { createLogger } from "../src/shared/logger.ts";
import { createManualTimers } from "../src/shared/timers.ts";

const logger = createLogger({ level: "silent" });

/** This machine's shape: cgroup v1 writable, v2 mounted beside it with no controller of use. */
const hybridProcCgroup = `9:name=systemd:/
8:pids:/
4:memory:/process_api/edb9
3:cpuset:/
2:cpuacct:/
1:cpu:/
0::/
`;
const hybridMountinfo = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
`;

function facts(procCgroup: string, mountinfo: string, overrides: Partial<CgroupFacts> = {}): CgroupFacts {
  return {
    entries: parseProcCgroup(procCgroup),
    mounts: parseCgroupMounts(mountinfo),
    controllersOf: () => ["hugetlb"],
    writable: () => true,
    ...overrides,
  };
}

describe("reading /proc/self/cgroup and /proc/self/mountinfo", () => {
  it("parses each hierarchy's controllers and path, v2's line without controllers", () => {
    expect(parseProcCgroup(hybridProcCgroup)).toContainEqual({
      hierarchyId: "4",
      controllers: ["memory"],
      path: "/process_api/edb9",
    });
    expect(parseProcCgroup("0::/system.slice/weft.service\n")).toEqual([
      { hierarchyId: "0", controllers: [], path: "/system.slice/weft.service" },
    ]);
    expect(parseProcCgroup("3:cpu,cpuacct:/a\ngarbage\n")).toEqual([
      { hierarchyId: "3", controllers: ["cpu", "cpuacct"], path: "/a" },
    ]);
  });

  it("keeps only cgroup mounts, with their root, mount point (unescaped) and options", () => {
    const mounts = parseCgroupMounts(
      `${hybridMountinfo}50 31 0:40 /docker/abc /sys/fs/cgroup/my\\040cpu rw shared:5 - cgroup cgroup rw,cpu,cpuacct\n`,
    );
    expect(mounts.map((mount) => mount.fsType)).toEqual([
      "cgroup",
      "cgroup",
      "cgroup",
      "cgroup",
      "cgroup",
      "cgroup2",
      "cgroup",
    ]);
    expect(mounts.at(-1)).toEqual({
      fsType: "cgroup",
      root: "/docker/abc",
      mountPoint: "/sys/fs/cgroup/my cpu",
      options: ["rw", "cpu", "cpuacct"],
    });
  });
});

describe("choosing the layout", () => {
  it("takes v1 under the groups this process is in, when v2 offers none of the controllers", () => {
    expect(chooseCgroupLayout(facts(hybridProcCgroup, hybridMountinfo))).toEqual({
      ok: true,
      layout: {
        version: "v1",
        base: {
          cpu: "/sys/fs/cgroup/cpu",
          memory: "/sys/fs/cgroup/memory/process_api/edb9",
          pids: "/sys/fs/cgroup/pids",
          cpuacct: "/sys/fs/cgroup/cpuacct",
        },
      },
    });
  });

  it("resolves a bind-mounted subtree of a container under its mount point", () => {
    const choice = chooseCgroupLayout(
      facts(
        "5:cpu,cpuacct:/docker/abc/x\n4:memory:/docker/abc\n3:pids:/docker/abc\n",
        "1 0 0:1 /docker/abc /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n" +
          "2 0 0:2 /docker/abc /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n" +
          "3 0 0:3 /docker/abc /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n",
      ),
    );
    expect(choice).toEqual({
      ok: true,
      layout: {
        version: "v1",
        base: {
          cpu: "/sys/fs/cgroup/cpu,cpuacct/x",
          memory: "/sys/fs/cgroup/memory",
          pids: "/sys/fs/cgroup/pids",
          cpuacct: "/sys/fs/cgroup/cpu,cpuacct/x",
        },
      },
    });
  });

  const unified = "30 1 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw,nsdelegate\n";

  it("prefers a writable v2 group with cpu, memory and pids", () => {
    const choice = chooseCgroupLayout(
      facts("0::/system.slice/weft.service\n", unified, {
        controllersOf: () => ["cpuset", "cpu", "io", "memory", "pids"],
      }),
    );
    expect(choice).toEqual({ ok: true, layout: { version: "v2", base: "/sys/fs/cgroup/system.slice/weft.service" } });
  });

  it("keeps the groups beside the platform's leaf once an earlier start moved it there", () => {
    const choice = chooseCgroupLayout(
      facts("0::/weft-platform\n", unified, { controllersOf: () => ["cpu", "memory", "pids"] }),
    );
    expect(choice).toEqual({ ok: true, layout: { version: "v2", base: "/sys/fs/cgroup" } });
  });

  it("names what is missing in both versions when neither can be used", () => {
    const choice = chooseCgroupLayout(
      facts(hybridProcCgroup, hybridMountinfo, { writable: (path) => !path.includes("/pids") }),
    );
    expect(choice).toEqual({
      ok: false,
      problem:
        "cgroup v2: /sys/fs/cgroup/unified offers hugetlb, not cpu, memory, pids; cgroup v1: /sys/fs/cgroup/pids is not writable",
    });
    const locked = chooseCgroupLayout(
      facts("0::/user.slice\n", unified, { controllersOf: () => ["cpu", "memory", "pids"], writable: () => false }),
    );
    expect(locked.ok).toBe(false);
    expect(!locked.ok && locked.problem).toMatch(/not writable \(not delegated to this process\).*no cpu hierarchy/);
  });
});

describe("the limits", () => {
  it("give a sandbox one core and all of them together all cores but one, at least one", () => {
    expect(sandboxCgroupLimits(2)).toEqual({
      memoryMarginMb: 64,
      cpuPeriodUs: 100_000,
      sandboxCpuQuotaUs: 100_000,
      totalCpuQuotaUs: 100_000,
      cpuWeight: 25,
      pidsMax: 64,
    });
    expect(sandboxCgroupLimits(1).totalCpuQuotaUs).toBe(100_000);
    expect(sandboxCgroupLimits(8).totalCpuQuotaUs).toBe(700_000);
    expect(cpuSharesOfWeight(25)).toBe(256);
    expect(groupMemoryMb(sandboxCgroupLimits(2), 256)).toBe(320);
  });
});

/**
 * An in-memory cgroup v2 tree with the kernel's rules that matter here: a group that is not the
 * root cannot enable controllers for its children while it holds processes, and a group holding
 * processes or child groups cannot be removed.
 */
function fakeCgroupV2(root: string, processes: string[]) {
  const dirs = new Set<string>([root]);
  const files = new Map<string, string>();
  const fail = (code: string, path: string) => Object.assign(new Error(`${code}: ${path}`), { code });
  const initGroup = (dir: string, controllers: string) => {
    files.set(join(dir, "cgroup.procs"), "");
    files.set(join(dir, "cgroup.controllers"), controllers);
    files.set(join(dir, "cgroup.subtree_control"), "");
    files.set(join(dir, "memory.events"), "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n");
  };
  initGroup(root, "cpu memory pids io");
  files.set(join(root, "cgroup.procs"), processes.join("\n"));
  const procsOf = (dir: string) => (files.get(join(dir, "cgroup.procs")) ?? "").split("\n").filter(Boolean);
  const fs: CgroupFs = {
    read: (path) => {
      const text = files.get(path);
      if (text === undefined) throw fail("ENOENT", path);
      return text;
    },
    write: (path, text) => {
      const dir = dirname(path);
      if (!dirs.has(dir)) throw fail("ENOENT", path);
      if (path.endsWith("cgroup.subtree_control")) {
        if (procsOf(dir).length > 0) throw fail("EBUSY", path);
        files.set(path, text.replaceAll("+", ""));
      } else if (path.endsWith("cgroup.procs")) {
        for (const other of dirs)
          files.set(
            join(other, "cgroup.procs"),
            procsOf(other)
              .filter((pid) => pid !== text)
              .join("\n"),
          );
        files.set(path, [...procsOf(dir), text].join("\n"));
      } else {
        files.set(path, text);
      }
    },
    exists: (path) => dirs.has(path) || files.has(path),
    writable: () => true,
    makeDir: (path) => {
      if (dirs.has(path)) throw fail("EEXIST", path);
      if (!dirs.has(dirname(path))) throw fail("ENOENT", path);
      dirs.add(path);
      initGroup(path, files.get(join(dirname(path), "cgroup.subtree_control")) ?? "");
    },
    removeDir: (path) => {
      if (!dirs.has(path)) throw fail("ENOENT", path);
      if (procsOf(path).length > 0 || [...dirs].some((dir) => dirname(dir) === path && dir !== path)) {
        throw fail("EBUSY", path);
      }
      dirs.delete(path);
      for (const file of [...files.keys()]) if (dirname(file) === path) files.delete(file);
    },
    listDirs: (path) =>
      [...dirs].filter((dir) => dir !== path && dirname(dir) === path).map((dir) => dir.slice(path.length + 1)),
  };
  return { fs, dirs, files, procsOf };
}

function fakeEnvironment(fs: CgroupFs, alive: number[] = []): CgroupEnvironment {
  return {
    fs,
    procSelfCgroup: "0::/weft.service\n",
    mountinfo: "30 1 0:26 / /cg rw - cgroup2 cgroup2 rw\n",
    pid: 4242,
    cores: 4,
    isAlive: (pid) => alive.includes(pid),
  };
}

describe("resolving WEFT_SANDBOX_CGROUPS on a delegated cgroup v2 subtree", () => {
  it("moves the platform into a leaf, enables the controllers and makes its parent group with the total CPU", () => {
    const tree = fakeCgroupV2("/cg/weft.service", ["4242", "4243"]);
    const resolution = resolveSandboxCgroups("auto", fakeEnvironment(tree.fs));
    expect(resolution).toMatchObject({
      kind: "enabled",
      cgroups: { layout: { version: "v2", base: "/cg/weft.service" } },
    });
    expect(tree.procsOf("/cg/weft.service/weft-platform")).toEqual(["4242", "4243"]);
    expect(tree.files.get("/cg/weft.service/cgroup.subtree_control")).toBe("cpu memory pids");
    expect(tree.files.get("/cg/weft.service/weft-sandboxes-4242/cpu.max")).toBe("300000 100000");
    expect(tree.files.get("/cg/weft.service/weft-sandboxes-4242/cpu.weight")).toBe("25");
  });

  it("removes the empty groups of dead platform processes, and leaves a live one's", () => {
    const tree = fakeCgroupV2("/cg/weft.service", []);
    for (const dir of ["weft-sandboxes-17", "weft-sandboxes-17/a1", "weft-sandboxes-18", "other"]) {
      tree.fs.makeDir(join("/cg/weft.service", dir));
    }
    resolveSandboxCgroups("auto", fakeEnvironment(tree.fs, [18]));
    expect(tree.dirs.has("/cg/weft.service/weft-sandboxes-17")).toBe(false);
    expect(tree.dirs.has("/cg/weft.service/weft-sandboxes-18")).toBe(true);
    expect(tree.dirs.has("/cg/weft.service/other")).toBe(true);
  });

  it("refuses under `on`, warns under `auto` and does nothing under `off` when there are no cgroups", () => {
    const none: CgroupEnvironment = {
      ...fakeEnvironment(fakeCgroupV2("/x", []).fs),
      procSelfCgroup: "",
      mountinfo: "",
    };
    const refused = resolveSandboxCgroups("on", none);
    expect(refused.kind).toBe("refused");
    expect(refused.kind === "refused" && refused.message).toMatch(
      /^WEFT_SANDBOX_CGROUPS=on but no cgroups can bound the sandboxes here \(cgroup v2: this process is in no cgroup v2 group; cgroup v1: no cpu hierarchy, no memory hierarchy, no pids hierarchy\): .* or set WEFT_SANDBOX_CGROUPS=auto$/,
    );
    const fallback = resolveSandboxCgroups("auto", none);
    expect(fallback.kind === "fallback" && fallback.warning).toMatch(
      /bounded only by its attempt's timeout, its threads and processes\nby nothing, and its memory only by the memory watchdog/,
    );
    expect(resolveSandboxCgroups("off", none)).toEqual({ kind: "off" });
  });
});

describe("a sandbox's group on the v2 tree", () => {
  it("holds its limits, wraps the launch, names an OOM kill, and goes with its parent on close", async () => {
    const tree = fakeCgroupV2("/cg/weft.service", ["4242"]);
    const resolution = resolveSandboxCgroups("auto", fakeEnvironment(tree.fs));
    if (resolution.kind !== "enabled") throw new Error("expected cgroups");
    const groups = openSandboxCgroups(resolution.cgroups, {
      logger,
      fs: tree.fs,
      pid: 4242,
      timers: createManualTimers(),
    });
    const group = groups.create(256);
    const [dir] = tree.fs
      .listDirs("/cg/weft.service/weft-sandboxes-4242")
      .map((name) => join("/cg/weft.service/weft-sandboxes-4242", name));
    if (dir === undefined) throw new Error("no group made");
    expect(tree.files.get(join(dir, "memory.max"))).toBe(String(320 * 1024 * 1024));
    expect(tree.files.get(join(dir, "cpu.max"))).toBe("100000 100000");
    expect(tree.files.get(join(dir, "pids.max"))).toBe("64");
    expect(group.wrap({ command: "/usr/bin/bwrap", args: ["--", "node", "it's.js"] })).toEqual({
      command: "/bin/sh",
      args: ["-c", `echo $$ > '${dir}/cgroup.procs' && exec "$0" "$@"`, "/usr/bin/bwrap", "--", "node", "it's.js"],
    });
    tree.files.set(join(dir, "memory.events"), "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n");
    expect(group.release()).toEqual({
      name: "OutOfMemoryError",
      message: "the workflow process used more than its memory limit of 320 MiB (cgroup) and was stopped",
    });
    expect(groups.create(128).release()).toBeUndefined();
    await groups.close();
    expect(tree.dirs.has("/cg/weft.service/weft-sandboxes-4242")).toBe(false);
    expect(tree.dirs.has("/cg/weft.service/weft-platform")).toBe(true);
  });

  it("ends the processes left in a group so it can go", async () => {
    const tree = fakeCgroupV2("/cg/weft.service", ["4242"]);
    const resolution = resolveSandboxCgroups("auto", fakeEnvironment(tree.fs));
    if (resolution.kind !== "enabled") throw new Error("expected cgroups");
    const killed: number[] = [];
    const groups = openSandboxCgroups(resolution.cgroups, {
      logger,
      fs: tree.fs,
      pid: 4242,
      kill: (pid) => {
        killed.push(pid);
        tree.fs.write("/cg/weft.service/weft-platform/cgroup.procs", String(pid));
      },
    });
    groups.create(64);
    const [name] = tree.fs.listDirs("/cg/weft.service/weft-sandboxes-4242");
    tree.fs.write(`/cg/weft.service/weft-sandboxes-4242/${name}/cgroup.procs`, "777");
    await groups.close();
    expect(killed).toEqual([777]);
    expect(tree.dirs.has("/cg/weft.service/weft-sandboxes-4242")).toBe(false);
  });
});

// Real groups on this machine: skipped where cgroups cannot be had, unless a run requires them.
const real = resolveSandboxCgroups("auto");
const requireCgroups = process.env.WEFT_TEST_REQUIRE_CGROUPS === "1";
const realCgroups = real.kind === "enabled" ? real.cgroups : undefined;

describe("without usable cgroups", () => {
  it.runIf(requireCgroups)("is not where this run was asked to test them (WEFT_TEST_REQUIRE_CGROUPS=1)", () => {
    expect(real).toMatchObject({ kind: "enabled" });
  });
});

/** The group directories a process is in, per controller, read from the kernel. */
function groupsOf(pid: number, cgroups: SandboxCgroups): { cpu: string; cpuUsage: string } {
  const entries = parseProcCgroup(readFileSync(`/proc/${pid}/cgroup`, "utf8"));
  const mounts = parseCgroupMounts(readFileSync("/proc/self/mountinfo", "utf8"));
  const dirOf = (controller: string | undefined) => {
    const entry = entries.find((candidate) =>
      controller === undefined ? candidate.hierarchyId === "0" : candidate.controllers.includes(controller),
    );
    const mount = mounts.find((candidate) =>
      controller === undefined ? candidate.fsType === "cgroup2" : candidate.options.includes(controller),
    );
    return entry === undefined || mount === undefined ? "" : join(mount.mountPoint, entry.path);
  };
  if (cgroups.layout.version === "v2") return { cpu: dirOf(undefined), cpuUsage: dirOf(undefined) };
  return { cpu: dirOf("cpu"), cpuUsage: dirOf("cpuacct") };
}

function statLine(text: string, name: string): number {
  return Number(new RegExp(`^${name} (\\d+)$`, "m").exec(text)?.[1] ?? Number.NaN);
}

describe.runIf(realCgroups !== undefined)("sandbox processes in real cgroups", () => {
  let isolation: SandboxIsolation;
  let bundleDir: string;
  beforeAll(async () => {
    const resolution = await resolveSandboxIsolation({ mode: "auto", egress: "public", egressAllow: [] });
    if (resolution.kind === "refused") throw new Error(resolution.message);
    isolation = resolution.isolation;
    bundleDir = mkdtempSync(join(tmpdir(), "weft-cgroups-"));
    writeFileSync(join(bundleDir, "busy.mjs"), "for (;;) {}\n");
  });
  afterAll(() => {
    rmSync(bundleDir, { recursive: true, force: true });
  });

  it("holds a busy child to its CPU quota, by the group's own accounting, and removes its group after it exits", async () => {
    if (realCgroups === undefined) return;
    // A fifth of a core: a busy loop wants a whole one, so the quota is what holds it.
    const quotaUs = 20_000;
    const cgroups = { ...realCgroups, limits: { ...realCgroups.limits, sandboxCpuQuotaUs: quotaUs } };
    const host = await startSandboxHost({ ...isolation, cgroups }, { logger });
    let child: ChildProcess | undefined;
    try {
      child = host.spawn(join(bundleDir, "busy.mjs"), 64);
      const pid = child.pid;
      if (pid === undefined) throw new Error("the child did not start");
      const exited = new Promise((resolve) => child?.once("exit", resolve));
      const dirs = await vi.waitFor(
        () => {
          const found = groupsOf(pid, cgroups);
          // Under cgroup v1 the cpu and cpuacct hierarchies may be apart, the child joined to each in turn:
          // until it is in both, the root's usage (the whole machine's) would be read.
          for (const dir of [found.cpu, found.cpuUsage]) {
            if (!dir.includes(`weft-sandboxes-${process.pid}/`)) throw new Error(`not in its groups yet: ${dir}`);
          }
          return found;
        },
        { timeout: 10_000 },
      );
      const stat = await vi.waitFor(
        () => {
          const text = readFileSync(join(dirs.cpu, "cpu.stat"), "utf8");
          if (!(statLine(text, "nr_throttled") >= 20)) throw new Error(`throttled too few periods yet:\n${text}`);
          return text;
        },
        { timeout: 30_000, interval: 50 },
      );
      const usageUs =
        cgroups.layout.version === "v2"
          ? statLine(readFileSync(join(dirs.cpuUsage, "cpu.stat"), "utf8"), "usage_usec")
          : Number(readFileSync(join(dirs.cpuUsage, "cpuacct.usage"), "utf8")) / 1000;
      const periods = statLine(readFileSync(join(dirs.cpu, "cpu.stat"), "utf8"), "nr_periods");
      expect(periods).toBeGreaterThanOrEqual(statLine(stat, "nr_periods"));
      // Never more than the quota in a period, give or take the scheduler's slice and the current period.
      expect(usageUs).toBeLessThanOrEqual((periods + 2) * quotaUs * 1.1);
      expect(usageUs).toBeGreaterThan(0);
      child.kill("SIGKILL");
      await exited;
      expect(host.exitCause?.(child)).toBeUndefined();
      await vi.waitFor(
        () => {
          if (existsSync(dirs.cpu) || existsSync(dirs.cpuUsage)) throw new Error("the group is still there");
        },
        { timeout: 10_000 },
      );
    } finally {
      if (child?.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await host.close();
    }
    // Removed once empty. Only another sandbox host of this test process (an earlier file's, in the
    // same worker) may keep it, with a group of its own in it.
    const parent = parentGroup(cgroups);
    if (existsSync(parent)) {
      const groups = readdirSync(parent, { withFileTypes: true }).filter((entry) => entry.isDirectory());
      expect(groups).not.toEqual([]);
    }
  }, 60_000);
});

/** This process's parent group in the CPU hierarchy, which the host removes on close. */
function parentGroup(cgroups: SandboxCgroups): string {
  const base = cgroups.layout.version === "v2" ? cgroups.layout.base : cgroups.layout.base.cpu;
  return join(base, `weft-sandboxes-${process.pid}`);
}

describe.runIf(realCgroups !== undefined)("a workflow that outgrows its cgroup's memory", () => {
  let engine: EngineHarness;
  const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({ name: "hoarder", retries: { maxAttempts: 1 }, async run(_input: unknown, ctx) {
      return ctx.step("hoard", () => {
        const kept: Buffer[] = [];
        for (let i = 0; i < 40; i++) kept.push(Buffer.alloc(16 * 1024 * 1024, 1));
        return kept.length;
      });
    } }),
  ],
});
`;
  beforeAll(async () => {
    const resolution = await resolveSandboxIsolation({ mode: "auto", egress: "public", egressAllow: [] });
    if (resolution.kind === "refused") throw new Error(resolution.message);
    // Manual timers keep the memory watchdog from reading: only the group can stop the child.
    engine = await startEngineHarness(
      { memoryMb: 96, isolation: { ...resolution.isolation, cgroups: realCgroups } },
      { timers: createManualTimers() },
    );
    await engine.deploy("prj_cgroup_hoarder", source, {
      version: 1,
      workflows: [{ name: "hoarder", retries: { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 } }],
    });
  });
  afterAll(async () => {
    await engine?.stop();
  });

  it("is killed by the kernel, and its attempt fails naming the group's memory limit", async () => {
    const id = await engine.run("prj_cgroup_hoarder", "hoarder", {});
    const failed = await engine.waitFor(id, (row) => row.status === "failed" || row.status === "succeeded", 60_000);
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatchObject({
      name: "OutOfMemoryError",
      message: "the workflow process used more than its memory limit of 160 MiB (cgroup) and was stopped",
    });
  }, 60_000);
});
