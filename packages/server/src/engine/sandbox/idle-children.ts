import type { Logger } from "../../shared/logger.ts";
import type { Timers } from "../../shared/timers.ts";
import { sandboxSweepIntervalMs } from "../limits.ts";
import type { Sandbox } from "./sandbox-child.ts";

/** What stopping idle children needs of the pool. */
export interface IdleChildren {
  /** The pool's children by key. */
  sandboxes: Map<string, Sandbox>;
  /** Stops a child on the worker's own account (its executions, if any, go back to the queue). */
  stopChild(sandbox: Sandbox): void;
  /** A child running nothing for this long is stopped. */
  idleMs: number;
  /** Which of these deployments are still active. */
  activeAmong(deploymentIds: string[]): Promise<Set<string>>;
  /** Milliseconds of the injected clock. */
  now(): number;
  timers: Timers;
  logger: Logger;
}

/**
 * Stops the children that run nothing and either have been idle for `idleMs` or belong to a
 * deployment that is no longer active. A child is checked again after it goes idle, so one
 * busy at the time of the sweep is stopped at a later one.
 */
async function sweep(pool: IdleChildren): Promise<void> {
  const { sandboxes } = pool;
  const now = pool.now();
  const idle = [...sandboxes.values()].filter((sandbox) => sandbox.running.size === 0);
  for (const sandbox of idle) if (now - sandbox.lastUsed >= pool.idleMs) pool.stopChild(sandbox);
  const left = idle.filter((sandbox) => sandboxes.get(sandbox.key) === sandbox);
  if (left.length === 0) return;
  const active = await pool.activeAmong(left.map((sandbox) => sandbox.deploymentId));
  // Re-checked after the query: an execution may have started in the child meanwhile.
  for (const sandbox of left) {
    if (!active.has(sandbox.deploymentId) && sandbox.running.size === 0) pool.stopChild(sandbox);
  }
}

/** Sweeps every `sandboxSweepIntervalMs` until stopped. */
export function startIdleSweep(pool: IdleChildren): { stop(): void } {
  let sweeping = true;
  let cancelSweep: () => void = () => undefined;
  const scheduleSweep = () => {
    cancelSweep = pool.timers.after(sandboxSweepIntervalMs, () => {
      sweep(pool)
        .catch((error: unknown) => pool.logger.warn({ err: error }, "stopping idle sandboxes failed"))
        .finally(() => {
          if (sweeping) scheduleSweep();
        });
    });
  };
  scheduleSweep();
  return {
    stop: () => {
      sweeping = false;
      cancelSweep();
    },
  };
}

/** Stops idle children, least recently used first, until at most `maxChildren` are left. */
export function evictIdle(pool: Pick<IdleChildren, "sandboxes" | "stopChild">, maxChildren: number): void {
  const idle = [...pool.sandboxes.values()]
    .filter((sandbox) => sandbox.running.size === 0)
    .sort((a, b) => a.lastUsed - b.lastUsed);
  while (pool.sandboxes.size > maxChildren && idle.length > 0) {
    const sandbox = idle.shift();
    if (sandbox === undefined) break;
    pool.stopChild(sandbox);
  }
}
