import { eq, lt } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { workerHeartbeats } from "../db/schema/index.ts";

/** Registers the worker, or renews its registration, until `expiresAt`. */
export async function beat(db: Database, request: { workerId: string; now: Date; expiresAt: Date }): Promise<void> {
  await db
    .insert(workerHeartbeats)
    .values({ workerId: request.workerId, startedAt: request.now, expiresAt: request.expiresAt })
    .onConflictDoUpdate({ target: workerHeartbeats.workerId, set: { expiresAt: request.expiresAt } });
}

/** A clean stop: the worker is gone at once, not once its heartbeat lapses. */
export async function forgetWorker(db: Database, workerId: string): Promise<void> {
  await db.delete(workerHeartbeats).where(eq(workerHeartbeats.workerId, workerId));
}

/** Drops the rows of workers whose heartbeat lapsed (once their executions are taken over, nothing reads them). */
export async function forgetLapsedWorkers(db: Database, now: Date): Promise<void> {
  await db.delete(workerHeartbeats).where(lt(workerHeartbeats.expiresAt, now));
}
