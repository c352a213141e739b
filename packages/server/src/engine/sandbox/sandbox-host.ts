import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import type { Logger } from "../../shared/logger.ts";
import { systemTimers } from "../../shared/timers.ts";
import { createEgressPolicy } from "../egress/address-policy.ts";
import { type EgressProxy, type ResolveHost, resolveWithSystem, startEgressProxy } from "../egress/egress-proxy.ts";
import type { SerializedError } from "./protocol.ts";
import { openSandboxCgroups } from "./sandbox-cgroups.ts";
import { hostLibraryDirs, type SandboxIsolation } from "./sandbox-isolation.ts";
import { buildSandboxLaunch, sandboxRuntimeFiles, sandboxStdio } from "./sandbox-launch.ts";

/** Starts sandbox children under the isolation in force, and runs the egress proxy they use. */
export interface SandboxHost {
  isolation: SandboxIsolation;
  spawn(bundlePath: string, memoryMb: number): ChildProcess;
  /** Why a child that exited was ended by its cgroup (its memory limit), if it was. */
  exitCause?(child: ChildProcess): SerializedError | undefined;
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
  let proxy: EgressProxy | undefined;
  let socketDir: string | undefined;
  if (isolation.mode === "bwrap" && isolation.egress === "public") {
    // A directory of its own keeps the socket's path short (Unix sockets allow about 100 bytes).
    socketDir = mkdtempSync(join(tmpdir(), "weft-egress-"));
    proxy = await startEgressProxy({
      socketPath: join(socketDir, "egress.sock"),
      policy: createEgressPolicy(isolation.egressAllow),
      resolveHost: deps.resolveHost ?? resolveWithSystem,
      logger: deps.logger,
      timers: systemTimers,
    });
  }
  const nodePath = realpathSync(process.execPath);
  const libraryDirs = hostLibraryDirs();
  const cgroups =
    isolation.cgroups === undefined ? undefined : openSandboxCgroups(isolation.cgroups, { logger: deps.logger });
  const exitCauses = new WeakMap<ChildProcess, SerializedError>();
  return {
    isolation,
    spawn: (bundlePath, memoryMb) => {
      const launch = buildSandboxLaunch({
        isolation,
        nodePath,
        libraryDirs,
        ...sandboxRuntimeFiles,
        bundleDir: dirname(bundlePath),
        bundleFile: basename(bundlePath),
        memoryMb,
        egressSocketPath: socketDir === undefined ? undefined : join(socketDir, "egress.sock"),
      });
      const group = cgroups?.create(memoryMb);
      const placed = group === undefined ? launch : { ...launch, ...group.wrap(launch) };
      const child = spawn(placed.command, placed.args, {
        env: launch.env,
        stdio: [...sandboxStdio],
      });
      if (group !== undefined) {
        // Registered before the pool's listener, which asks for the cause: the group is read before it goes.
        child.once("exit", () => {
          const cause = group.release();
          if (cause !== undefined) exitCauses.set(child, cause);
        });
      }
      child.once("error", (error) => {
        deps.logger.error({ err: error, command: launch.command }, "a sandbox process could not be started");
        // A process that never started emits no "exit"; the pool learns of every end through it.
        if (child.pid === undefined) child.emit("exit", null, null);
      });
      return child;
    },
    exitCause: (child) => exitCauses.get(child),
    close: async () => {
      await cgroups?.close();
      await proxy?.close();
      if (socketDir !== undefined) rmSync(socketDir, { recursive: true, force: true });
    },
  };
}
