import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import type { Logger } from "../../shared/logger.ts";
import { systemTimers } from "../../shared/timers.ts";
import type { EgressChild } from "../egress/egress-proxy.ts";
import { type ResolveHost, resolveWithSystem } from "../egress/resolve-host.ts";
import { startSandboxEgress } from "../egress/sandbox-egress.ts";
import type { SerializedError } from "./protocol.ts";
import { openSandboxCgroups } from "./sandbox-cgroups.ts";
import { findExecutable, hostLibraryDirs, type SandboxIsolation } from "./sandbox-isolation.ts";
import { atLowerPriority, buildSandboxLaunch, sandboxRuntimeFiles, sandboxStdio } from "./sandbox-launch.ts";
import { seccompFilterFor } from "./seccomp-filter.ts";

/** Starts sandbox children under the isolation in force, and runs the egress proxy they use. */
export interface SandboxHost {
  isolation: SandboxIsolation;
  spawn(bundlePath: string, memoryMb: number): ChildProcess;
  /** Why a child that exited was ended by its cgroup (its memory limit), if it was. */
  exitCause?(child: ChildProcess): SerializedError | undefined;
  /**
   * The child's way out through the egress proxy (under `public` egress): the pool calls its
   * `executionStarted()` as it hands the child an execution and `executionEnded()` as the execution leaves.
   */
  egressOf(child: ChildProcess): EgressChild | undefined;
  close(): Promise<void>;
}

export interface SandboxHostDependencies {
  logger: Logger;
  /** How the egress proxy resolves names (the system resolver by default). */
  resolveHost?: ResolveHost | undefined;
}

export async function startSandboxHost(
  isolation: SandboxIsolation,
  deps: SandboxHostDependencies,
): Promise<SandboxHost> {
  const egress =
    isolation.mode === "bwrap" && isolation.egress === "public"
      ? await startSandboxEgress({
          allow: isolation.egressAllow,
          limits: isolation.egressLimits,
          resolveHost: deps.resolveHost ?? resolveWithSystem,
          logger: deps.logger,
          timers: systemTimers,
        })
      : undefined;
  const egressOfChild = new WeakMap<ChildProcess, EgressChild>();
  const nodePath = realpathSync(process.execPath);
  const libraryDirs = hostLibraryDirs();
  const filter = isolation.mode === "bwrap" ? writeSyscallFilter(deps.logger) : undefined;
  const nicePath = findExecutable("nice", process.env.PATH ?? "");
  if (nicePath === undefined)
    deps.logger.warn("no nice executable on the PATH: sandboxes run at the platform's priority");
  const cgroups =
    isolation.cgroups === undefined ? undefined : openSandboxCgroups(isolation.cgroups, { logger: deps.logger });
  const exitCauses = new WeakMap<ChildProcess, SerializedError>();
  return {
    isolation,
    spawn: (bundlePath, memoryMb) => {
      // A socket per child: each connection to the proxy is the child's that made it.
      const childEgress = egress?.openChild(basename(dirname(bundlePath)));
      const launch = buildSandboxLaunch({
        isolation,
        nodePath,
        libraryDirs,
        ...sandboxRuntimeFiles,
        bundleDir: dirname(bundlePath),
        bundleFile: basename(bundlePath),
        memoryMb,
        egressSocketPath: childEgress?.socketPath,
        seccomp: filter !== undefined,
      });
      const lowered = nicePath === undefined ? launch : atLowerPriority(launch, nicePath);
      const group = cgroups?.create(memoryMb);
      const placed = group === undefined ? lowered : { ...lowered, ...group.wrap(lowered) };
      // A descriptor of its own per child: bubblewrap reads the file to its end, and a shared one
      // would leave the next child an empty program.
      const filterFd = filter === undefined ? undefined : openSync(filter.path, "r");
      let child: ChildProcess;
      try {
        // The leader of a process group of its own, so that its kill reaches what it started
        // (`killSandboxProcess`). When the worker dies, bubblewrap's `--die-with-parent` ends it, or
        // (without bubblewrap) the end of its channel.
        child = spawn(placed.command, placed.args, {
          env: launch.env,
          stdio: filterFd === undefined ? [...sandboxStdio] : [...sandboxStdio, filterFd],
          detached: true,
        });
      } finally {
        if (filterFd !== undefined) closeSync(filterFd);
      }
      if (group !== undefined) {
        // Registered before the pool's listener, which asks for the cause: the group is read before it goes.
        child.once("exit", () => {
          const cause = group.release();
          if (cause !== undefined) exitCauses.set(child, cause);
        });
      }
      if (childEgress !== undefined) {
        egressOfChild.set(child, childEgress);
        child.once("exit", () => void childEgress.close());
      }
      child.once("error", (error) => {
        deps.logger.error({ err: error, command: launch.command }, "a sandbox process could not be started");
        // A process that never started emits no "exit"; the pool learns of every end through it.
        if (child.pid === undefined) child.emit("exit", null, null);
      });
      return child;
    },
    exitCause: (child) => exitCauses.get(child),
    egressOf: (child) => egressOfChild.get(child),
    close: async () => {
      filter?.remove();
      await cgroups?.close();
      await egress?.close();
    },
  };
}

/** Writes the system-call filter of this machine's architecture to a private file, or says it has none. */
function writeSyscallFilter(logger: Logger): { path: string; remove(): void } | undefined {
  const filter = seccompFilterFor(process.arch);
  if (filter === undefined) {
    logger.warn({ arch: process.arch }, "no system-call filter for this architecture: sandboxes run without one");
    return undefined;
  }
  const directory = mkdtempSync(join(tmpdir(), "weft-seccomp-"));
  const path = join(directory, "filter.bpf");
  writeFileSync(path, filter.program, { mode: 0o600 });
  return { path, remove: () => rmSync(directory, { recursive: true, force: true }) };
}
