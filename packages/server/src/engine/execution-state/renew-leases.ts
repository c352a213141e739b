import { and, eq, gte, inArray, ne, notInArray } from "drizzle-orm";
import type { Database } from "../../db/database.ts";
import { executions, workerHeartbeats } from "../../db/schema/index.ts";
import { leasedState } from "./execution-states.ts";

/**
 * Renews the leases of the executions a worker runs (not a transition: the state stays the leased
 * one); answers those it still holds, and when a cancel was asked. The rows are locked in the
 * order of their ids, as a batch of ends locks them: two statements locking several rows of one
 * worker in different orders could deadlock.
 */
export async function renewLeases(
  db: Database,
  request: { workerId: string; executionIds: string[]; expiresAt: Date },
): Promise<{ id: string; cancelRequestedAt: Date | null }[]> {
  if (request.executionIds.length === 0) return [];
  const held = db.$with("held").as(
    db
      .select({ id: executions.id })
      .from(executions)
      .where(
        and(
          eq(executions.leaseOwner, request.workerId),
          eq(executions.status, leasedState),
          inArray(executions.id, request.executionIds),
        ),
      )
      .orderBy(executions.id)
      .for("update"),
  );
  return db
    .with(held)
    .update(executions)
    .set({ leaseExpiresAt: request.expiresAt })
    .where(inArray(executions.id, db.select({ id: held.id }).from(held)))
    .returning({ id: executions.id, cancelRequestedAt: executions.cancelRequestedAt });
}

/**
 * Ends at once the leases of running executions whose worker is gone, so that the next claim takes
 * them over (`expireLease`) without waiting for the lease to run out. Gone means: any worker but
 * this one on the embedded database (`everyOtherWorker`), which one process at a time may open, so
 * every lease left in it was a dead process's; on PostgreSQL, a worker without a live heartbeat
 * row. Not a transition: only the lease's expiry moves. Answers how many leases it ended.
 */
export async function endOrphanedLeases(
  db: Database,
  request: { workerId: string; now: Date; everyOtherWorker: boolean },
): Promise<number> {
  const liveWorkers = db
    .select({ workerId: workerHeartbeats.workerId })
    .from(workerHeartbeats)
    .where(gte(workerHeartbeats.expiresAt, request.now));
  const ended = await db
    .update(executions)
    .set({ leaseExpiresAt: new Date(request.now.getTime() - 1) })
    .where(
      and(
        eq(executions.status, leasedState),
        ne(executions.leaseOwner, request.workerId),
        gte(executions.leaseExpiresAt, request.now),
        request.everyOtherWorker ? undefined : notInArray(executions.leaseOwner, liveWorkers),
      ),
    )
    .returning({ id: executions.id });
  return ended.length;
}
