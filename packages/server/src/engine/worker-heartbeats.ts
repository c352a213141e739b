import { eq, lt, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { workerHeartbeats } from "../db/schema/index.ts";
import { relaxedCommit, relaxedCommitUsed } from "./sql-rows.ts";

/**
 * Registers the worker, or renews its registration, until `expiresAt`. Its commit does not wait for
 * the WAL flush (`relaxedCommit`): a beat lost in a crash of the database leaves the registration a
 * beat shorter, and the next one renews it.
 */
export async function beat(db: Database, request: { workerId: string; now: Date; expiresAt: Date }): Promise<void> {
  const expiresAt = request.expiresAt.toISOString();
  await db.execute(
    sql`with ${relaxedCommit}, beat as (insert into ${workerHeartbeats} (worker_id, started_at, expires_at)
        values (${request.workerId}, ${request.now.toISOString()}::timestamptz, ${expiresAt}::timestamptz)
        on conflict (worker_id) do update set expires_at = excluded.expires_at)
      select ${relaxedCommitUsed} as relaxed`,
  );
}

/** A clean stop: the worker is gone at once, not once its heartbeat lapses. */
export async function forgetWorker(db: Database, workerId: string): Promise<void> {
  await db.delete(workerHeartbeats).where(eq(workerHeartbeats.workerId, workerId));
}

/** Drops the rows of workers whose heartbeat lapsed (once their executions are taken over, nothing reads them). */
export async function forgetLapsedWorkers(db: Database, now: Date): Promise<void> {
  await db.delete(workerHeartbeats).where(lt(workerHeartbeats.expiresAt, now));
}
