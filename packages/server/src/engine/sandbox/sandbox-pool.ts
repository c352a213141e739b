import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../shared/logger.ts";
import type { ChildMessage, ParentMessage, SerializedError } from "./protocol.ts";
import type { SandboxHost } from "./sandbox-host.ts";

type StepMessage = Extract<ChildMessage, { type: "step" }>;
type RunMessage = Extract<ParentMessage, { type: "run" }>;

/** What a worker does with the messages of one execution running in a sandbox. */
export interface ExecutionHandlers {
  /** Store (or record) a step; the answer tells the child whether the execution goes on. */
  step(message: StepMessage): Promise<{ stop?: "cancelled" | "abandoned" | undefined }>;
  sleep(message: Extract<ChildMessage, { type: "sleep" }>): void;
  finished(message: Extract<ChildMessage, { type: "finished" }>): void;
  /** The child died with this execution in flight; `killedByParent` when the worker terminated it. */
  exited(info: { error: SerializedError; killedByParent: boolean }): void;
}

export interface SandboxRun {
  /** Tells the child to let the execution go (it stops at its next step boundary). */
  abandon(): void;
  /** Kills the child process, and with it every execution it runs (used when one overruns its timeout). */
  terminate(): void;
}

export interface SandboxPoolOptions {
  /** Where bundles are written, one directory per deployment (the only place a child may read). */
  bundlesDir: string;
  memoryMb: number;
  /** Most warm child processes kept; idle ones beyond it are stopped, least recently used first. */
  maxChildren: number;
  loadBundle(deploymentId: string): Promise<string>;
  logger: Logger;
  /** Starts each child under the isolation in force (bubblewrap or a plain process). */
  host: SandboxHost;
}

export interface SandboxPool {
  run(deploymentId: string, message: RunMessage, handlers: ExecutionHandlers): Promise<SandboxRun>;
  close(): Promise<void>;
}

interface Sandbox {
  deploymentId: string;
  child: ChildProcess;
  ready: Promise<void>;
  running: Map<string, ExecutionHandlers>;
  killedByParent: boolean;
  lastUsed: number;
  stderrTail: string;
}

/** Starts child processes per deployment, keeps them warm and routes each execution's messages. */
export function createSandboxPool(options: SandboxPoolOptions): SandboxPool {
  const sandboxes = new Map<string, Sandbox>();
  const starting = new Map<string, Promise<Sandbox>>();

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
    const outOfMemory = /heap out of memory|Allocation failed/i.test(sandbox.stderrTail);
    const how = signal === null ? `exit code ${code}` : `signal ${signal}`;
    return {
      name: outOfMemory ? "OutOfMemoryError" : "SandboxExitError",
      message: outOfMemory
        ? `the workflow process ran out of memory (limit ${options.memoryMb} MB) and stopped (${how})`
        : `the workflow process stopped unexpectedly (${how})`,
      stack: sandbox.stderrTail.trim() === "" ? undefined : sandbox.stderrTail.trim().slice(-2000),
    };
  }

  async function start(deploymentId: string): Promise<Sandbox> {
    const bundlePath = await writeBundle(deploymentId);
    const child = options.host.spawn(bundlePath, options.memoryMb);
    let settleReady: { resolve(): void; reject(error: Error): void } | undefined;
    const sandbox: Sandbox = {
      deploymentId,
      child,
      ready: new Promise<void>((resolve, reject) => {
        settleReady = { resolve, reject };
      }),
      running: new Map(),
      killedByParent: false,
      lastUsed: Date.now(),
      stderrTail: "",
    };
    sandbox.ready.catch(() => undefined);
    child.stdout?.on("data", (chunk: Buffer) => {
      options.logger.debug({ deploymentId, output: chunk.toString() }, "workflow process output");
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      sandbox.stderrTail = (sandbox.stderrTail + chunk.toString()).slice(-8000);
    });
    child.on("message", (message: ChildMessage) => {
      if (message.type === "ready") return settleReady?.resolve();
      if (message.type === "loadFailed") {
        const error = new Error(`the deployment's bundle could not be loaded: ${message.error.message}`);
        error.stack = message.error.stack;
        return settleReady?.reject(error);
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
      sandbox.running.delete(message.executionId);
      if (message.type === "sleep") handlers.sleep(message);
      else handlers.finished(message);
    });
    child.once("exit", (code, signal) => {
      if (sandboxes.get(deploymentId) === sandbox) sandboxes.delete(deploymentId);
      const error = exitError(sandbox, code, signal);
      settleReady?.reject(new Error(error.message));
      const running = [...sandbox.running.values()];
      sandbox.running.clear();
      for (const handlers of running) handlers.exited({ error, killedByParent: sandbox.killedByParent });
    });
    return sandbox;
  }

  function send(sandbox: Sandbox, message: ParentMessage): void {
    if (sandbox.child.connected) sandbox.child.send(message);
  }

  function evictIdle(): void {
    const idle = [...sandboxes.values()]
      .filter((sandbox) => sandbox.running.size === 0)
      .sort((a, b) => a.lastUsed - b.lastUsed);
    while (sandboxes.size > options.maxChildren && idle.length > 0) {
      const sandbox = idle.shift();
      if (sandbox === undefined) break;
      sandboxes.delete(sandbox.deploymentId);
      sandbox.killedByParent = true;
      sandbox.child.kill("SIGKILL");
    }
  }

  async function acquire(deploymentId: string): Promise<Sandbox> {
    let sandbox = sandboxes.get(deploymentId);
    if (sandbox === undefined) {
      // Executions claimed together all find the deployment cold: they must share one start, not
      // each fork a process of their own.
      let pending = starting.get(deploymentId);
      if (pending === undefined) {
        pending = start(deploymentId)
          .then((started) => {
            sandboxes.set(deploymentId, started);
            evictIdle();
            return started;
          })
          .finally(() => starting.delete(deploymentId));
        starting.set(deploymentId, pending);
      }
      sandbox = await pending;
    }
    sandbox.lastUsed = Date.now();
    await sandbox.ready;
    return sandbox;
  }

  return {
    run: async (deploymentId, message, handlers) => {
      const sandbox = await acquire(deploymentId);
      sandbox.running.set(message.executionId, handlers);
      send(sandbox, message);
      return {
        abandon: () => {
          sandbox.running.delete(message.executionId);
          send(sandbox, { type: "abandon", executionId: message.executionId });
        },
        terminate: () => {
          sandbox.killedByParent = true;
          sandbox.child.kill("SIGKILL");
        },
      };
    },
    close: async () => {
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
