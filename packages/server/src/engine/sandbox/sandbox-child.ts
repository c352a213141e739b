import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { Duplex } from "node:stream";
import type { Logger } from "../../shared/logger.ts";
import type { Timers } from "../../shared/timers.ts";
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
  maxIdleSecondsOverChannelBudget,
} from "../limits.ts";
import { type ChildChannel, openChildChannel } from "./child-channel.ts";
import { readChildOutput } from "./child-output.ts";
import type { ExecutionHandlers } from "./execution-handlers.ts";
import type { SerializedError } from "./protocol.ts";
import type { SandboxHost } from "./sandbox-host.ts";

/** One child process of the pool, running executions of one deployment. */
export interface Sandbox {
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

/** Settles a child's `ready`: the bundle loaded, or it did not. */
export interface ReadySettlement {
  resolve(): void;
  reject(error: Error): void;
}

/** What starting a child needs of the pool. */
export interface ChildStartOptions {
  bundlesDir: string;
  memoryMb: number;
  loadBundle(deploymentId: string): Promise<string>;
  host: SandboxHost;
  logger: Logger;
  timers: Timers;
  /** Milliseconds of the injected clock, for idle times. */
  now(): number;
  /** Milliseconds of a monotonic clock, for the per-second budgets of the channel and the output. */
  elapsedMs(): number;
}

/** What the pool does with a child's messages, its misconduct and its exit. */
export interface ChildEvents {
  message(sandbox: Sandbox, raw: unknown, ready: ReadySettlement | undefined): void;
  /** Kills a child for a reason of its own making; every attempt in it fails with `error`. */
  kill(sandbox: Sandbox, error: SerializedError): void;
  /** The child broke its channel or flooded its output. */
  misconduct(sandbox: Sandbox, error: SerializedError): void;
  /** The child exited: the pool lets go of it. */
  exited(sandbox: Sandbox): void;
}

export function protocolError(message: string): SerializedError {
  return { name: "SandboxProtocolError", message };
}

function outputFloodError(stream: "stdout" | "stderr"): SerializedError {
  return {
    name: "OutputFloodError",
    message: `the workflow process wrote more than ${formatLimit(maxChildOutputBytesPerSecond)} a second to its ${stream} for ${maxChildOutputSecondsOverBudget} s in a row, and was stopped`,
  };
}

/**
 * bubblewrap exits with 128 + n when the process inside dies of signal n, as shells report it:
 * read such a code back as the signal, so the cause reads the same in either sandbox.
 */
function signalOfExitCode(code: number | null): string | undefined {
  if (code === null || code <= 128) return undefined;
  return Object.entries(constants.signals).find(([, number]) => number === code - 128)?.[0];
}

async function writeBundle(options: ChildStartOptions, deploymentId: string): Promise<string> {
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

/** Why a child exited, as the error its attempts fail with. */
function exitError(
  options: ChildStartOptions,
  sandbox: Sandbox,
  code: number | null,
  signal: NodeJS.Signals | null,
): SerializedError {
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

/** Reads the child's stdout (logged) and stderr (its tail kept for the exit's error), each within its budget. */
function readOutputOf(options: ChildStartOptions, sandbox: Sandbox, events: ChildEvents): void {
  const { child, deploymentId } = sandbox;
  const outputBudget = {
    maxBytesPerSecond: maxChildOutputBytesPerSecond,
    maxPieceBytes: maxChildOutputLineBytes,
    maxSecondsOverBudget: maxChildOutputSecondsOverBudget,
    now: options.elapsedMs,
    timers: options.timers,
  };
  if (child.stdout !== null) {
    readChildOutput(child.stdout, {
      ...outputBudget,
      onText: (output) => options.logger.debug({ deploymentId, output }, "workflow process output"),
      onFlood: () => events.misconduct(sandbox, outputFloodError("stdout")),
    });
  }
  if (child.stderr !== null) {
    readChildOutput(child.stderr, {
      ...outputBudget,
      onText: (text) => {
        sandbox.stderrTail = (sandbox.stderrTail + text).slice(-8000);
      },
      onFlood: () => events.misconduct(sandbox, outputFloodError("stderr")),
    });
  }
}

/**
 * Starts a child for `deploymentId` under `key`: its bundle written where the child may read it,
 * its channel open, its output read, and its exit reported to every execution in it. Its `ready`
 * settles once the bundle loaded, or failed to within `bundleLoadTimeoutMs`.
 */
export async function startSandboxChild(
  options: ChildStartOptions,
  target: { deploymentId: string; key: string },
  events: ChildEvents,
): Promise<Sandbox> {
  const { deploymentId } = target;
  const bundlePath = await writeBundle(options, deploymentId);
  const child = options.host.spawn(bundlePath, options.memoryMb);
  let settleReady: ReadySettlement | undefined;
  const channelSocket = child.stdio[3];
  if (!(channelSocket instanceof Duplex)) throw new Error("a sandbox child was started without its channel");
  /** Seconds in a row over the channel's message budget with no execution running. */
  let idleSecondsOver = 0;
  const brokeChannel = (problem: string) => {
    options.logger.warn({ deploymentId, problem }, "a workflow process broke its channel and was stopped");
    events.misconduct(
      sandbox,
      protocolError(`the workflow process broke its channel to the worker: it sent ${problem}`),
    );
  };
  const sandbox: Sandbox = {
    deploymentId,
    key: target.key,
    child,
    channel: openChildChannel({
      socket: channelSocket,
      limits: {
        maxFrameBytes: maxChannelFrameBytes,
        maxFramesPerSecond: maxChannelFramesPerSecond,
        maxBytesPerSecond: maxChannelBytesPerSecond,
        maxPendingBytes: maxChannelPendingBytes,
      },
      now: options.elapsedMs,
      timers: options.timers,
      onMessage: (raw) => {
        try {
          events.message(sandbox, raw, settleReady);
        } catch (error) {
          options.logger.error({ err: error, deploymentId }, "a sandbox message could not be handled");
          events.kill(sandbox, protocolError("a message of the workflow process could not be handled"));
        }
      },
      onOverBudget: (secondsInRow) => {
        idleSecondsOver = sandbox.running.size > 0 ? 0 : secondsInRow === 1 ? 1 : idleSecondsOver + 1;
        if (idleSecondsOver < maxIdleSecondsOverChannelBudget) return;
        sandbox.channel.close();
        brokeChannel(
          `more than ${maxChannelFramesPerSecond} messages a second for ${idleSecondsOver} s in a row while it ran no execution`,
        );
      },
      onViolation: (problem) => brokeChannel(problem),
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
  const stopLoadTimer = options.timers.after(bundleLoadTimeoutMs, () =>
    events.kill(sandbox, {
      name: "SandboxStartError",
      message: `the deployment's bundle did not load within ${bundleLoadTimeoutMs / 1000} s`,
    }),
  );
  sandbox.ready.then(stopLoadTimer, stopLoadTimer);
  readOutputOf(options, sandbox, events);
  child.on("error", (error) => options.logger.debug({ err: error, deploymentId }, "sandbox process error"));
  child.once("exit", (code, signal) => {
    sandbox.channel.close();
    events.exited(sandbox);
    const error = exitError(options, sandbox, code, signal);
    settleReady?.reject(Object.assign(new Error(error.message), { name: error.name }));
    const running = [...sandbox.running.values()];
    sandbox.running.clear();
    for (const handlers of running) handlers.exited({ error, killedByParent: sandbox.killedByParent });
  });
  return sandbox;
}
