import { performance } from "node:perf_hooks";
import type { Logger } from "../../shared/logger.ts";
import { systemTimers, type Timers } from "../../shared/timers.ts";
import { memoryWatchIntervalMs } from "../limits.ts";
import { routeChildMessage } from "./child-messages.ts";
import type { ExecutionHandlers } from "./execution-handlers.ts";
import { evictIdle, startIdleSweep } from "./idle-children.ts";
import { startMemoryWatchdog } from "./memory-watchdog.ts";
import { sandboxMemoryBytes } from "./process-tree-memory.ts";
import type { ParentMessage, SerializedError } from "./protocol.ts";
import { type ChildEvents, type ChildStartOptions, type Sandbox, startSandboxChild } from "./sandbox-child.ts";
import type { SandboxHost } from "./sandbox-host.ts";
import { killSandboxProcess } from "./sandbox-process-group.ts";

type RunMessage = Extract<ParentMessage, { type: "run" }>;

export interface SandboxRun {
  /** Tells the child to let the execution go (it stops at its next step boundary). */
  abandon(): void;
  /** Kills the child process, and with it every execution it runs (a timeout, or a cancel it ignores). */
  terminate(): void;
  /** Tells the child a cancel was requested: it goes ahead of no more of the execution's steps. */
  cancelRequested(): void;
}

export interface SandboxPoolOptions {
  /** Where bundles are written, one directory per deployment (the only place a child may read). */
  bundlesDir: string;
  memoryMb: number;
  /** Most warm child processes kept; idle ones beyond it are stopped, least recently used first. */
  maxChildren: number;
  /** A child running nothing for this long is stopped (its memory is the platform's largest cost at rest). */
  idleMs: number;
  /**
   * Which of these deployments are still active: a child of one that is not is stopped once it runs
   * nothing, since few executions will ever need it again.
   */
  activeAmong(deploymentIds: string[]): Promise<Set<string>>;
  /** Milliseconds of the injected clock, for idle times. */
  now(): number;
  loadBundle(deploymentId: string): Promise<string>;
  logger: Logger;
  /** Starts each child under the isolation in force (bubblewrap or a plain process). */
  host: SandboxHost;
  /** Paces the memory watchdog and the per-second budgets of each child's channel and output; system timers by default. */
  timers?: Timers | undefined;
  /**
   * Milliseconds of a monotonic clock for those per-second budgets (`performance.now` by default):
   * apart from `now`, which tests hold still while a child may still send what it likes.
   */
  elapsedMs?: (() => number) | undefined;
  /** Resident bytes of a child's process tree; `/proc` by default. */
  readMemory?: ((pid: number) => number | undefined) | undefined;
}

export interface SandboxPool {
  /**
   * Hands the execution to a child of its deployment once the child is ready, unless `wanted` then
   * says its attempt ended while the process started (a timeout, a cancel, a lease lost):
   * `undefined`, and none of its code ran.
   */
  run(
    deploymentId: string,
    message: RunMessage,
    handlers: ExecutionHandlers,
    wanted: () => boolean,
  ): Promise<SandboxRun | undefined>;
  /** The deployments that have a child process now. */
  deployments(): string[];
  close(): Promise<void>;
}

/** Most executions remembered to run alone; the oldest is forgotten first (it then shares a child again). */
const maxSuspects = 10_000;

/** Starts child processes per deployment, keeps them warm and routes each execution's messages. */
export function createSandboxPool(options: SandboxPoolOptions): SandboxPool {
  const sandboxes = new Map<string, Sandbox>();
  /** Executions to run alone in a child, since they shared one that broke its channel. */
  const suspects = new Set<string>();
  const starting = new Map<string, Promise<Sandbox>>();
  const timers = options.timers ?? systemTimers;
  const children = childrenOf(options, sandboxes, suspects);
  const childStart: ChildStartOptions = {
    ...options,
    timers,
    elapsedMs: options.elapsedMs ?? (() => performance.now()),
  };
  const readMemory = options.readMemory ?? ((pid: number) => sandboxMemoryBytes(pid));
  const watchdog = startMemoryWatchdog({
    timers,
    intervalMs: memoryWatchIntervalMs,
    limitBytes: options.memoryMb * 1024 * 1024,
    readBytes: readMemory,
    watched: () =>
      [...sandboxes.values()].map((sandbox) => ({
        pid: sandbox.child.exitCode === null && sandbox.child.signalCode === null ? sandbox.child.pid : undefined,
        overLimit: (bytes: number) =>
          children.kill(sandbox, {
            name: "OutOfMemoryError",
            message: `the workflow process used ${Math.round(bytes / 1024 / 1024)} MB of memory, over the limit of ${options.memoryMb} MB, and was stopped`,
          }),
      })),
  });
  const sweep = startIdleSweep({ ...options, sandboxes, stopChild: children.stopChild, timers });

  async function acquire(deploymentId: string, key: string): Promise<Sandbox> {
    let sandbox = sandboxes.get(key);
    if (sandbox === undefined) {
      // Executions claimed together all find the deployment cold: they must share one start, not
      // each fork a process of their own.
      let pending = starting.get(key);
      if (pending === undefined) {
        pending = startSandboxChild(childStart, { deploymentId, key }, children)
          .then((started) => {
            sandboxes.set(key, started);
            evictIdle({ sandboxes, stopChild: children.stopChild }, options.maxChildren);
            return started;
          })
          .finally(() => starting.delete(key));
        starting.set(key, pending);
      }
      sandbox = await pending;
    }
    sandbox.lastUsed = options.now();
    await sandbox.ready;
    return sandbox;
  }

  return {
    run: async (deploymentId, message, handlers, wanted) => {
      const alone = suspects.delete(message.executionId);
      const sandbox = await acquire(deploymentId, alone ? `${deploymentId}/${message.executionId}` : deploymentId);
      if (!wanted()) {
        // Its next attempt still runs alone; a child started for this one alone is stopped.
        if (alone) suspects.add(message.executionId);
        children.release(sandbox, message.executionId);
        return undefined;
      }
      sandbox.running.set(message.executionId, handlers);
      // Before the child hears of the execution: the bytes it may move grow by this execution's budget.
      options.host.egressOf(sandbox.child)?.executionStarted();
      children.send(sandbox, message);
      return {
        abandon: () => {
          children.release(sandbox, message.executionId);
          children.send(sandbox, { type: "abandon", executionId: message.executionId });
        },
        terminate: () => {
          sandbox.killedByParent = true;
          killSandboxProcess(sandbox.child);
        },
        cancelRequested: () => children.send(sandbox, { type: "cancelRequested", executionId: message.executionId }),
      };
    },
    deployments: () => [...new Set([...sandboxes.values()].map((sandbox) => sandbox.deploymentId))],
    close: async () => {
      watchdog.stop();
      sweep.stop();
      await Promise.allSettled([...starting.values()]);
      const all = [...sandboxes.values()];
      sandboxes.clear();
      await Promise.all(all.map(killAndWait));
    },
  };
}

/** Kills a child on the worker's own account and resolves once it exited. */
function killAndWait(sandbox: Sandbox): Promise<void> {
  return new Promise<void>((resolve) => {
    if (sandbox.child.exitCode !== null || sandbox.child.signalCode !== null) return resolve();
    sandbox.child.once("exit", () => resolve());
    sandbox.killedByParent = true;
    killSandboxProcess(sandbox.child);
  });
}

/** What the pool does to its children: what their messages, their misconduct and their exit lead to. */
interface PoolChildren extends ChildEvents {
  send(sandbox: Sandbox, message: ParentMessage): void;
  /** An execution leaves its child; the child's idle time counts from its last one. */
  release(sandbox: Sandbox, executionId: string): void;
  /** Stops a child on the worker's own account: its executions go back to the queue. */
  stopChild(sandbox: Sandbox): void;
}

function childrenOf(
  options: Pick<SandboxPoolOptions, "host" | "now">,
  sandboxes: Map<string, Sandbox>,
  suspects: Set<string>,
): PoolChildren {
  const forget = (sandbox: Sandbox) => {
    if (sandboxes.get(sandbox.key) === sandbox) sandboxes.delete(sandbox.key);
  };
  const stopChild = (sandbox: Sandbox) => {
    forget(sandbox);
    sandbox.killedByParent = true;
    killSandboxProcess(sandbox.child);
  };
  const send = (sandbox: Sandbox, message: ParentMessage) => sandbox.channel.send(message);
  const release = (sandbox: Sandbox, executionId: string) => {
    if (sandbox.running.delete(executionId)) options.host.egressOf(sandbox.child)?.executionEnded();
    sandbox.lastUsed = options.now();
    if (sandbox.key !== sandbox.deploymentId && sandbox.running.size === 0) stopChild(sandbox);
  };
  const kill = (sandbox: Sandbox, error: SerializedError) => {
    if (sandbox.killError !== undefined || sandbox.killedByParent) return;
    sandbox.killError = error;
    forget(sandbox);
    killSandboxProcess(sandbox.child);
  };
  /**
   * A child broke its channel or flooded its output. With one execution in it, that execution did,
   * and its attempt fails with `error`. With several, nothing tells which one wrote the bytes: the
   * child is stopped, each execution goes back to the queue without using an attempt, and runs next
   * in a child of its own, where the same conduct is its alone.
   */
  const misconduct = (sandbox: Sandbox, error: SerializedError) => {
    if (sandbox.running.size <= 1) {
      kill(sandbox, error);
      return;
    }
    for (const executionId of sandbox.running.keys()) {
      suspects.add(executionId);
      if (suspects.size > maxSuspects) suspects.delete(suspects.values().next().value ?? executionId);
    }
    stopChild(sandbox);
  };
  return {
    send,
    release,
    stopChild,
    kill,
    misconduct,
    message: (sandbox, raw, ready) => routeChildMessage({ send, release, misconduct }, sandbox, raw, ready),
    exited: forget,
  };
}
