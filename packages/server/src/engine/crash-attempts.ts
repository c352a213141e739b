import type { ExecutionError } from "../db/schema/index.ts";
import type { ClaimedExecution } from "./execution-state/claim.ts";

/** Deaths of a worker process while it ran one execution, unless `WEFT_CRASH_ATTEMPTS` says otherwise. */
export const defaultCrashAttempts = 3;

/**
 * The error that ends an execution at its `crashAttempts`-th takeover from a dead worker, before any
 * of its code runs again, or `undefined` when it may run. Why a limit: an execution whose code kills its worker
 * process (and with it, on the embedded database, the whole platform) would otherwise be taken over
 * and run again after every restart, and kill it again, for ever. Only takeovers count: a
 * workflow's own failures are its retry policy's, and a clean stop hands executions back uncounted.
 */
export function workerCrashError(
  execution: Pick<ClaimedExecution, "transition" | "leaseExpiries">,
  crashAttempts: number,
): ExecutionError | undefined {
  if (execution.transition !== "expireLease" || execution.leaseExpiries < crashAttempts) return undefined;
  const times = execution.leaseExpiries === 1 ? "once" : `${execution.leaseExpiries} times`;
  return {
    name: "WorkerCrashError",
    message: `the worker process died ${times} while running this execution; it is not run again (WEFT_CRASH_ATTEMPTS=${crashAttempts})`,
  };
}
