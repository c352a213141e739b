import { and, eq, gte, inArray, ne, notInArray, sql } from "drizzle-orm";
import type { Database } from "../../db/database.ts";
import { executions, workerHeartbeats } from "../../db/schema/index.ts";
import { relaxedCommit, relaxedCommitUsed, sqlRows } from "../sql-rows.ts";
import { leasedState } from "./execution-states.ts";
import { statusIn } from "./transition-condition.ts";

/**
 * Renews the leases of the executions a worker runs (not a transition: the state stays the leased
 * one); answers those it still holds, and when a cancel was asked. It never waits for a row lock:
 * the statements that change a worker's rows (a batch of ends, which also makes each invoking parent
 * due; a wait, which locks its token then its row) lock them in orders of their own, and a renewal
 * waiting among them, holding the rows it had locked, closed cycles that PostgreSQL broke by
 * failing one of them. A row another transaction holds now is renewed at the next beat, and is
 * answered as held by what was committed when the statement began: only a committed change (an
 * end, a wait, a take-over) lets go of an attempt. Its commit does not wait for the WAL flush
 * (`relaxedCommit`): a renewal lost in a crash of the database leaves the lease a beat shorter, and
 * the next beat renews it.
 */
export async function renewLeases(
  db: Database,
  request: { workerId: string; executionIds: string[]; expiresAt: Date },
): Promise<{ id: string; cancelRequestedAt: Date | null }[]> {
  if (request.executionIds.length === 0) return [];
  const ours = sql`lease_owner = ${request.workerId} and ${statusIn([leasedState])}
    and ${inArray(executions.id, request.executionIds)}`;
  const rows = await sqlRows<{ id: string; cancel_requested_at: Date | string | null }>(
    db,
    sql`with ${relaxedCommit}, held as (select id, cancel_requested_at from executions where ${ours}),
      free as (select id from executions where ${ours} for no key update skip locked),
      renewed as (update executions set lease_expires_at = ${request.expiresAt.toISOString()}::timestamptz
        where id in (select id from free) returning 1)
    select id, cancel_requested_at, ${relaxedCommitUsed} as relaxed from held`,
  );
  return rows.map((row) => ({
    id: row.id,
    cancelRequestedAt: row.cancel_requested_at === null ? null : new Date(row.cancel_requested_at),
  }));
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
