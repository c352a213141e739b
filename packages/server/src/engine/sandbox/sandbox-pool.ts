import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Duplex } from "node:stream";
import type { Logger } from "../../shared/logger.ts";
import { systemTimers, type Timers } from "../../shared/timers.ts";
import {
  bundleLoadTimeoutMs,
  formatLimit,
  maxChannelBytesPerSecond,
  maxChannelFrameBytes,
  maxChannelFramesPerSecond,
  maxChannelPendingBytes,
  maxChildOutputBytesPerSecond,
  maxChildOutputLineBytes,
  maxChildOutputSecondsOverBudget,
  memoryWatchIntervalMs,
  sandboxSweepIntervalMs,
} from "../limits.ts";
import { type ChildChannel, openChildChannel } from "./child-channel.ts";
import { readChildOutput } from "./child-output.ts";
import { startMemoryWatchdog } from "./memory-watchdog.ts";
import { sandboxMemoryBytes } from "./process-tree-memory.ts";
import {
  type ChildMessage,
  type ParentMessage,
  parseChildMessage,
  type SerializedError,
  type TokenAnswer,
} from "./protocol.ts";
import type { SandboxHost } from "./sandbox-host.ts";

type StepMessage = Extract<ChildMessage, { type: "step" }>;
type RunMessage = Extract<ParentMessage, { type: "run" }>;

/** What a worker does with the messages of one execution running in a sandbox. */
export interface ExecutionHandlers {
  /**
   * Store (or record) a step; the answer tells the child whether the execution goes on, or that
   * the step failed after all (`error`: a limit, or the database refused it).
   */
  step(message: StepMessage): Promise<{ stop?: "cancelled" | "abandoned" | undefined; error?: SerializedError }>;
  sleep(message: Extract<ChildMessage, { type: "sleep" }>): void;
  /** Create a wait token or wait for one; `stop: "waiting"` means the execution left this child. */
  token(message: Extract<ChildMessage, { type: "token" }>): Promise<TokenAnswer>;
  finished(message: Extract<ChildMessage, { type: "finished" }>): void;
  /** The child sent a malformed message naming this execution, which the child no longer runs. */
  malformed(error: SerializedError): void;
  /**
   * The child died with this execution in flight; `killedByParent` when the worker terminated it
   * (not for the memory cap or a malformed message: those fail the attempt with `error`).
   */
  exited(info: { error: SerializedError; killedByParent: boolean }): void;
}

export interface SandboxRun {
  /** Tells the child to let the execution go (it stops at its next step boundary). */
  abandon(): void;
  /** Kills the child process, and with it every execution it runs (a timeout, or a cancel it ignores). */
  terminate(): void;
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
  run(deploymentId: string, message: RunMessage, handlers: ExecutionHandlers): Promise<SandboxRun>;
  /** The deployments that have a child process now. */
  deployments(): string[];
  close(): Promise<void>;
}

interface Sandbox {
  deploymentId: string;
  /** The deployment's id, or for a child that runs one execution alone, the deployment's and that execution's. */
  key: string;
  child: ChildProcess;
  channel: ChildChannel;
  ready: Promise<void>;
  running: Map<string, ExecutionHandlers>;
  killedByParent: boolean;
  /** Why the worker killed the child on its own account (memory, a malformed message): the error its attempts fail with. */
  killError: SerializedError | undefined;
  lastUsed: number;
  stderrTail: string;
}

/**
 * bubblewrap exits with 128 + n when the process inside dies of signal n, as shells report it:
 * read such a code back as the signal, so the cause reads the same in either sandbox.
 */
function signalOfExitCode(code: number | null): string | undefined {
  if (code === null || code <= 128) return undefined;
  return Object.entries(constants.signals).find(([, number]) => number === code - 128)?.[0];
}

/** Most executions remembered to run alone; the oldest is forgotten first (it then shares a child again). */
const maxSuspects = 10_000;

function protocolError(message: string): SerializedError {
  return { name: "SandboxProtocolError", message };
}

function outputFloodError(stream: "stdout" | "stderr"): SerializedError {
  return {
    name: "OutputFloodError",
    message: `the workflow process wrote more than ${formatLimit(maxChildOutputBytesPerSecond)} a second to its ${stream} for ${maxChildOutputSecondsOverBudget} s in a row, and was stopped`,
  };
}

/** Starts child processes per deployment, keeps them warm and routes each execution's messages. */
export function createSandboxPool(options: SandboxPoolOptions): SandboxPool {
  const sandboxes = new Map<string, Sandbox>();
  /** Executions to run alone in a child, since they shared one that broke its channel. */
  const suspects = new Set<string>();
  const starting = new Map<string, Promise<Sandbox>>();
  const readMemory = options.readMemory ?? ((pid: number) => sandboxMemoryBytes(pid));
  const timers = options.timers ?? systemTimers;
  const elapsedMs = options.elapsedMs ?? (() => performance.now());
  const watchdog = startMemoryWatchdog({
    timers,
    intervalMs: memoryWatchIntervalMs,
    limitBytes: options.memoryMb * 1024 * 1024,
    readBytes: readMemory,
    watched: () =>
      [...sandboxes.values()].map((sandbox) => ({
        pid: sandbox.child.exitCode === null && sandbox.child.signalCode === null ? sandbox.child.pid : undefined,
        overLimit: (bytes: number) =>
          kill(sandbox, {
            name: "OutOfMemoryError",
            message: `the workflow process used ${Math.round(bytes / 1024 / 1024)} MB of memory, over the limit of ${options.memoryMb} MB, and was stopped`,
          }),
      })),
  });

  /** Kills a child for a reason of its own making; every attempt in it fails with `error`. */
  function kill(sandbox: Sandbox, error: SerializedError): void {
    if (sandbox.killError !== undefined || sandbox.killedByParent) return;
    sandbox.killError = error;
    if (sandboxes.get(sandbox.key) === sandbox) sandboxes.delete(sandbox.key);
    sandbox.child.kill("SIGKILL");
  }

  async function writeBundle(deploymentId: string): Promise<string> {
    const directory = join(options.bundlesDir, deploymentId);
    const path = join(directory, "bundle.mjs");
    if (existsSync(path)) return path;
    const text = await options.loadBundle(deploymentId);
    mkdirSync(directory, { recursive: true });
    // Several workers may write the same immutable bundle at once: write aside, then rename.
    const temporary = `${path}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(temporary, text);
    renameSync(temporary, path);
    return path;
  }

  function exitError(sandbox: Sandbox, code: number | null, signal: NodeJS.Signals | null): SerializedError {
    if (sandbox.killError !== undefined) return sandbox.killError;
    const cause = options.host.exitCause?.(sandbox.child);
    if (cause !== undefined) return cause;
    const outOfMemory = /heap out of memory|Allocation failed/i.test(sandbox.stderrTail);
    const ended = signal ?? signalOfExitCode(code);
    const how = ended === undefined ? `exit code ${code}` : `signal ${ended}`;
    return {
      name: outOfMemory ? "OutOfMemoryError" : "SandboxExitError",
      message: outOfMemory
        ? `the workflow process ran out of memory (limit ${options.memoryMb} MB) and stopped (${how})`
        : `the workflow process stopped unexpectedly (${how})`,
      stack: sandbox.stderrTail.trim() === "" ? undefined : sandbox.stderrTail.trim().slice(-2000),
    };
  }

  async function start(deploymentId: string, key: string): Promise<Sandbox> {
    const bundlePath = await writeBundle(deploymentId);
    const child = options.host.spawn(bundlePath, options.memoryMb);
    let settleReady: { resolve(): void; reject(error: Error): void } | undefined;
    const channelSocket = child.stdio[3];
    if (!(channelSocket instanceof Duplex)) throw new Error("a sandbox child was started without its channel");
    const sandbox: Sandbox = {
      deploymentId,
      key,
      child,
      channel: openChildChannel({
        socket: channelSocket,
        limits: {
          maxFrameBytes: maxChannelFrameBytes,
          maxFramesPerSecond: maxChannelFramesPerSecond,
          maxBytesPerSecond: maxChannelBytesPerSecond,
          maxPendingBytes: maxChannelPendingBytes,
        },
        now: elapsedMs,
        timers,
        onMessage: (raw) => {
          try {
            route(sandbox, raw, settleReady);
          } catch (error) {
            options.logger.error({ err: error, deploymentId }, "a sandbox message could not be handled");
            kill(sandbox, protocolError("a message of the workflow process could not be handled"));
          }
        },
        onViolation: (problem) => {
          options.logger.warn({ deploymentId, problem }, "a workflow process broke its channel and was stopped");
          endForMisconduct(
            sandbox,
            protocolError(`the workflow process broke its channel to the worker: it sent ${problem}`),
          );
        },
      }),
      ready: new Promise<void>((resolve, reject) => {
        settleReady = { resolve, reject };
      }),
      running: new Map(),
      killedByParent: false,
      killError: undefined,
      lastUsed: options.now(),
      stderrTail: "",
    };
    sandbox.ready.catch(() => undefined);
    const stopLoadTimer = timers.after(bundleLoadTimeoutMs, () =>
      kill(sandbox, {
        name: "SandboxStartError",
        message: `the deployment's bundle did not load within ${bundleLoadTimeoutMs / 1000} s`,
      }),
    );
    sandbox.ready.then(stopLoadTimer, stopLoadTimer);
    const outputBudget = {
      maxBytesPerSecond: maxChildOutputBytesPerSecond,
      maxPieceBytes: maxChildOutputLineBytes,
      maxSecondsOverBudget: maxChildOutputSecondsOverBudget,
      now: elapsedMs,
      timers,
    };
    if (child.stdout !== null) {
      readChildOutput(child.stdout, {
        ...outputBudget,
        onText: (output) => options.logger.debug({ deploymentId, output }, "workflow process output"),
        onFlood: () => endForMisconduct(sandbox, outputFloodError("stdout")),
      });
    }
    if (child.stderr !== null) {
      readChildOutput(child.stderr, {
        ...outputBudget,
        onText: (text) => {
          sandbox.stderrTail = (sandbox.stderrTail + text).slice(-8000);
        },
        onFlood: () => endForMisconduct(sandbox, outputFloodError("stderr")),
      });
    }
    child.on("error", (error) => options.logger.debug({ err: error, deploymentId }, "sandbox process error"));
    child.once("exit", (code, signal) => {
      if (sandboxes.get(key) === sandbox) sandboxes.delete(key);
      const error = exitError(sandbox, code, signal);
      settleReady?.reject(Object.assign(new Error(error.message), { name: error.name }));
      const running = [...sandbox.running.values()];
      sandbox.running.clear();
      for (const handlers of running) handlers.exited({ error, killedByParent: sandbox.killedByParent });
    });
    return sandbox;
  }

  /** Hands one message of a child to the execution it names; what cannot be attributed kills the child. */
  function route(sandbox: Sandbox, raw: unknown, ready: { resolve(): void; reject(error: Error): void } | undefined) {
    const parsed = parseChildMessage(raw);
    if (!parsed.ok) {
      const error = protocolError(`the workflow process sent a malformed message (${parsed.problem})`);
      const handlers = parsed.executionId === undefined ? undefined : sandbox.running.get(parsed.executionId);
      if (handlers === undefined || parsed.executionId === undefined) return endForMisconduct(sandbox, error);
      release(sandbox, parsed.executionId);
      send(sandbox, { type: "abandon", executionId: parsed.executionId });
      return handlers.malformed(error);
    }
    const message = parsed.message;
    if (message.type === "ready") return ready?.resolve();
    if (message.type === "loadFailed") {
      const error = new Error(`the deployment's bundle could not be loaded: ${message.error.message}`);
      error.stack = message.error.stack;
      return ready?.reject(error);
    }
    const handlers = sandbox.running.get(message.executionId);
    if (handlers === undefined) return;
    if (message.type === "step") {
      handlers.step(message).then(
        (answer) =>
          send(sandbox, {
            type: "stepStored",
            executionId: message.executionId,
            sequence: message.sequence,
            ...answer,
          }),
        () =>
          send(sandbox, {
            type: "stepStored",
            executionId: message.executionId,
            sequence: message.sequence,
            stop: "abandoned",
          }),
      );
      return;
    }
    if (message.type === "token") {
      const address = { type: "tokenAnswer", executionId: message.executionId, sequence: message.sequence } as const;
      handlers.token(message).then(
        (answer) => {
          if (answer.stop === "waiting") release(sandbox, message.executionId);
          send(sandbox, { ...address, ...answer });
        },
        () => send(sandbox, { ...address, stop: "abandoned" }),
      );
      return;
    }
    release(sandbox, message.executionId);
    if (message.type === "sleep") handlers.sleep(message);
    else handlers.finished(message);
  }

  function send(sandbox: Sandbox, message: ParentMessage): void {
    sandbox.channel.send(message);
  }

  /** An execution leaves its child; the child's idle time counts from its last one. */
  function release(sandbox: Sandbox, executionId: string): void {
    if (sandbox.running.delete(executionId)) options.host.egressOf(sandbox.child)?.executionEnded();
    sandbox.lastUsed = options.now();
    if (sandbox.key !== sandbox.deploymentId && sandbox.running.size === 0) stopChild(sandbox);
  }

  /**
   * A child broke its channel or flooded its output. With one execution in it, that execution did,
   * and its attempt fails with `error`. With several, nothing tells which one wrote the bytes: the
   * child is stopped, each execution goes back to the queue without using an attempt, and runs next
   * in a child of its own, where the same conduct is its alone.
   */
  function endForMisconduct(sandbox: Sandbox, error: SerializedError): void {
    if (sandbox.running.size <= 1) {
      kill(sandbox, error);
      return;
    }
    for (const executionId of sandbox.running.keys()) {
      suspects.add(executionId);
      if (suspects.size > maxSuspects) suspects.delete(suspects.values().next().value ?? executionId);
    }
    stopChild(sandbox);
  }

  function stopChild(sandbox: Sandbox): void {
    if (sandboxes.get(sandbox.key) === sandbox) sandboxes.delete(sandbox.key);
    sandbox.killedByParent = true;
    sandbox.child.kill("SIGKILL");
  }

  /**
   * Stops the children that run nothing and either have been idle for `idleMs` or belong to a
   * deployment that is no longer active. A child is checked again after it goes idle, so one
   * busy at the time of the sweep is stopped at a later one.
   */
  async function sweep(): Promise<void> {
    const now = options.now();
    const idle = [...sandboxes.values()].filter((sandbox) => sandbox.running.size === 0);
    for (const sandbox of idle) if (now - sandbox.lastUsed >= options.idleMs) stopChild(sandbox);
    const left = idle.filter((sandbox) => sandboxes.get(sandbox.key) === sandbox);
    if (left.length === 0) return;
    const active = await options.activeAmong(left.map((sandbox) => sandbox.deploymentId));
    // Re-checked after the query: an execution may have started in the child meanwhile.
    for (const sandbox of left) {
      if (!active.has(sandbox.deploymentId) && sandbox.running.size === 0) stopChild(sandbox);
    }
  }

  let sweeping = true;
  let cancelSweep: () => void = () => undefined;
  const scheduleSweep = () => {
    cancelSweep = timers.after(sandboxSweepIntervalMs, () => {
      sweep()
        .catch((error: unknown) => options.logger.warn({ err: error }, "stopping idle sandboxes failed"))
        .finally(() => {
          if (sweeping) scheduleSweep();
        });
    });
  };
  scheduleSweep();

  function evictIdle(): void {
    const idle = [...sandboxes.values()]
      .filter((sandbox) => sandbox.running.size === 0)
      .sort((a, b) => a.lastUsed - b.lastUsed);
    while (sandboxes.size > options.maxChildren && idle.length > 0) {
      const sandbox = idle.shift();
      if (sandbox === undefined) break;
      stopChild(sandbox);
    }
  }

  async function acquire(deploymentId: string, key: string): Promise<Sandbox> {
    let sandbox = sandboxes.get(key);
    if (sandbox === undefined) {
      // Executions claimed together all find the deployment cold: they must share one start, not
      // each fork a process of their own.
      let pending = starting.get(key);
      if (pending === undefined) {
        pending = start(deploymentId, key)
          .then((started) => {
            sandboxes.set(key, started);
            evictIdle();
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
    run: async (deploymentId, message, handlers) => {
      const alone = suspects.delete(message.executionId);
      const sandbox = await acquire(deploymentId, alone ? `${deploymentId}/${message.executionId}` : deploymentId);
      sandbox.running.set(message.executionId, handlers);
      // Before the child hears of the execution: the bytes it may move grow by this execution's budget.
      options.host.egressOf(sandbox.child)?.executionStarted();
      send(sandbox, message);
      return {
        abandon: () => {
          release(sandbox, message.executionId);
          send(sandbox, { type: "abandon", executionId: message.executionId });
        },
        terminate: () => {
          sandbox.killedByParent = true;
          sandbox.child.kill("SIGKILL");
        },
      };
    },
    deployments: () => [...new Set([...sandboxes.values()].map((sandbox) => sandbox.deploymentId))],
    close: async () => {
      watchdog.stop();
      sweeping = false;
      cancelSweep();
      await Promise.allSettled([...starting.values()]);
      const all = [...sandboxes.values()];
      sandboxes.clear();
      await Promise.all(
        all.map(
          (sandbox) =>
            new Promise<void>((resolve) => {
              if (sandbox.child.exitCode !== null || sandbox.child.signalCode !== null) return resolve();
              sandbox.child.once("exit", () => resolve());
              sandbox.killedByParent = true;
              sandbox.child.kill("SIGKILL");
            }),
        ),
      );
    },
  };
}
