import type { WorkflowManifest } from "@weft/contract";
import { inArray } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { executions, spans } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { type EnqueueExecutionRequest, insertQueuedExecutions, queuedExecutionRows } from "./enqueue-execution.ts";

/** Says, just before a commit, whether the caller still wants the row (its deadline has not passed). */
export interface CommitDeadline {
  readonly expired: boolean;
}

export interface BatchedEnqueueRequest {
  /** No idempotency key: a keyed trigger needs its own serialised transaction (`enqueueExecution`). */
  request: Omit<EnqueueExecutionRequest, "idempotencyKey">;
  /**
   * The workflow as the caller's deployment defines it. The caller vouches that the deployment is in
   * the request's project and defines this workflow (ingress read both from the active deployment).
   */
  workflow: WorkflowManifest;
  deadline?: CommitDeadline;
}

export interface EnqueueBatcher {
  /**
   * Resolves with the execution id once its row is committed. Rejects with `DeadlineExpiredError`
   * when the deadline had passed before the commit (nothing of it is stored), or with the database's
   * error for this request alone.
   */
  enqueue(item: BatchedEnqueueRequest): Promise<string>;
}

export class DeadlineExpiredError extends Error {
  override readonly name = "DeadlineExpiredError";
}

interface Pending {
  item: BatchedEnqueueRequest;
  resolve: (executionId: string) => void;
  reject: (error: unknown) => void;
}

/** Most executions written by one transaction. */
const maxBatch = 500;

/**
 * Group commit for triggers: requests that arrive while a transaction is being written wait for
 * the next one, which inserts all of them (executions and spans) and NOTIFYs in one statement.
 * Under load a commit (and its flush to disk) serves many submissions; alone, a request is written
 * at once. Every caller is still answered only after its own row is committed, and a request that fails
 * (say, its project was deleted meanwhile) is retried alone so that it cannot fail the others.
 */
export function createEnqueueBatcher(deps: { db: Database; clock: Clock; ids: IdGenerator }): EnqueueBatcher {
  let pending: Pending[] = [];
  let writing = false;

  async function write(batch: Pending[]): Promise<void> {
    const live = batch.filter((entry) => {
      if (entry.item.deadline?.expired !== true) return true;
      entry.reject(new DeadlineExpiredError("the deadline passed before the execution was written"));
      return false;
    });
    if (live.length === 0) return;
    const rows = live.map((entry) => queuedExecutionRows(deps, entry.item.request, entry.item.workflow));
    let late = new Set<number>();
    try {
      await deps.db.transaction(async (tx) => {
        await insertQueuedExecutions(tx, rows);
        late = new Set(live.flatMap((entry, index) => (entry.item.deadline?.expired === true ? [index] : [])));
        if (late.size > 0) {
          const lateIds = rows.filter((_, index) => late.has(index)).map((row) => row.execution.id);
          await tx.delete(spans).where(inArray(spans.executionId, lateIds));
          await tx.delete(executions).where(inArray(executions.id, lateIds));
        }
      });
    } catch (error) {
      if (live.length === 1) {
        live[0]?.reject(error);
        return;
      }
      for (const entry of live) await write([entry]);
      return;
    }
    live.forEach((entry, index) => {
      if (late.has(index)) entry.reject(new DeadlineExpiredError("the deadline passed before the commit"));
      else entry.resolve(rows[index]?.execution.id ?? "");
    });
  }

  async function drain(): Promise<void> {
    while (pending.length > 0) {
      const batch = pending.slice(0, maxBatch);
      pending = pending.slice(maxBatch);
      await write(batch).catch((error: unknown) => {
        for (const entry of batch) entry.reject(error);
      });
    }
    writing = false;
  }

  return {
    enqueue: (item) =>
      new Promise<string>((resolve, reject) => {
        pending.push({ item, resolve, reject });
        if (writing) return;
        writing = true;
        // Requests parsed in the same turn of the event loop join the first transaction.
        setImmediate(() => void drain());
      }),
  };
}
