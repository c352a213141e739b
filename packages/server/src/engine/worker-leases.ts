import type { Database } from "../db/database.ts";
import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import { afterRenewal, enforceDeadline } from "./attempts/attempt-watch.ts";
import type { AttemptContext, RunningAttempt } from "./attempts/running-attempt.ts";
import { endOrphanedLeases, renewLeases } from "./execution-state/index.ts";
import { beat, forgetLapsedWorkers } from "./worker-heartbeats.ts";

export interface WorkerLeaseDependencies {
  db: Database;
  clock: Clock;
  logger: Logger;
  workerId: string;
  leaseMs: number;
  running: ReadonlyMap<string, RunningAttempt>;
  context: AttemptContext;
}

/**
 * Registers this worker and ends the leases of executions whose worker is gone, so the first claim
 * pass resumes them at once: after a crash on the embedded database (one process at a time) or of
 * a worker whose heartbeat lapsed on PostgreSQL, nothing waits for a lease to run out.
 */
export async function takeOverOrphans(
  deps: WorkerLeaseDependencies,
  options: { everyOtherWorker: boolean },
): Promise<void> {
  const { db, clock, logger, workerId, leaseMs } = deps;
  const now = clock.now();
  await beat(db, { workerId, now, expiresAt: new Date(now.getTime() + leaseMs) });
  const ended = await endOrphanedLeases(db, { workerId, now, everyOtherWorker: options.everyOtherWorker });
  if (ended > 0) logger.info({ executions: ended }, "taking over the executions of workers that are gone");
  await forgetLapsedWorkers(db, now);
}

/**
 * Renews the leases of what runs here and this worker's heartbeat, and acts on the deadlines and
 * cancels it finds. The answer is about the attempts running when the beat began, and is acted on
 * for those only: by the time it comes, an execution that let go of its worker (a wait) may have
 * been claimed again by it, as a new attempt whose lease the renewal never asked about; read as
 * lost, that attempt was let go of while its row stayed leased to this worker, which never takes a
 * lease back from itself.
 */
export async function heartbeat(deps: WorkerLeaseDependencies): Promise<void> {
  const { db, clock, workerId, leaseMs, running, context } = deps;
  const now = clock.now();
  const runs = [...running.values()];
  for (const run of runs) enforceDeadline(context, run, now);
  const expiresAt = new Date(now.getTime() + leaseMs);
  const [held] = await Promise.all([
    renewLeases(db, { workerId, executionIds: runs.map((run) => run.execution.id), expiresAt }),
    beat(db, { workerId, now, expiresAt }),
  ]);
  const heldIds = new Map(held.map((entry) => [entry.id, entry.cancelRequestedAt]));
  for (const run of runs) {
    if (running.get(run.execution.id) === run) afterRenewal(context, run, heldIds.get(run.execution.id), now);
  }
}
