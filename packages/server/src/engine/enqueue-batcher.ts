import type { WorkflowManifest } from "@weft/contract";
import { inArray } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { createGroupCommit } from "../db/group-commit.ts";
import { executions, spans } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import {
  type EnqueueExecutionRequest,
  type EnqueueOutcome,
  insertNewExecutions,
  queuedExecutionRows,
} from "./enqueue-execution.ts";
import { startLocally, startsAtOnce } from "./execution-state/local-start.ts";
import type { LocalStarts } from "./local-starts.ts";
import type { NewExecutionRows } from "./new-execution-rows.ts";

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

/** Most executions written by one transaction. */
const maxBatch = 500;

/** What became of one request of a batch: its committed execution, or why none was kept. */
type Written = { executionId: string } | { expired: string };

/**
 * Group commit for triggers (`createGroupCommit`): requests that arrive while a transaction is
 * being written wait for the next one, which inserts all of them (executions and spans) and
 * NOTIFYs in one statement. Every caller is still answered only after its own row is committed,
 * and a request that fails (say, its project was deleted meanwhile) is retried alone so that it
 * cannot fail the others.
 */
export function createEnqueueBatcher(deps: {
  db: Database;
  clock: Clock;
  ids: IdGenerator;
  /** This process's worker, which may run one execution of each batch at once (see `local-starts.ts`). */
  localStarts?: LocalStarts | undefined;
}): EnqueueBatcher {
  /** The first execution of the batch that the local worker takes at once, leased to it; one at most. */
  function startOneLocally(live: { index: number; item: BatchedEnqueueRequest; row: NewExecutionRows }[]) {
    const entry = live.find((candidate) => startsAtOnce(candidate.item.workflow, candidate.row));
    const slot = entry === undefined ? undefined : deps.localStarts?.reserve(entry.item.request.projectId);
    if (entry === undefined || slot === undefined) return undefined;
    const started = startLocally(entry.row, slot);
    entry.row = started.rows;
    return { index: entry.index, slot, execution: started.execution };
  }

  async function write(batch: BatchedEnqueueRequest[]): Promise<Written[]> {
    const live = batch.flatMap((item, index) =>
      item.deadline?.expired === true
        ? []
        : [{ index, item, row: queuedExecutionRows(deps, item.request, item.workflow) }],
    );
    let late = new Set<number>();
    let leasedInputs: ReadonlyMap<string, unknown> = new Map();
    let outcomes: ReadonlyMap<string, EnqueueOutcome> = new Map();
    let local: ReturnType<typeof startOneLocally>;
    try {
      local = startOneLocally(live);
      if (live.length > 0)
        await deps.db.transaction(async (tx) => {
          ({ leasedInputs, outcomes } = await insertNewExecutions(
            tx,
            live.map((entry) => entry.row),
          ));
          const lateEntries = live.filter((entry) => entry.item.deadline?.expired === true);
          late = new Set(lateEntries.map((entry) => entry.index));
          if (lateEntries.length > 0) {
            const lateIds = lateEntries.map((entry) => entry.row.execution.id);
            await tx.delete(spans).where(inArray(spans.executionId, lateIds));
            await tx.delete(executions).where(inArray(executions.id, lateIds));
          }
        });
    } catch (error) {
      local?.slot.cancel();
      throw error;
    }
    if (local !== undefined) {
      if (late.has(local.index)) local.slot.cancel();
      else local.slot.begin({ ...local.execution, input: leasedInputs.get(local.execution.id) });
    }
    // A debounced trigger is answered with the queued execution it moved.
    const written = new Map(
      live.map((entry) => [entry.index, outcomes.get(entry.row.execution.id)?.executionId ?? entry.row.execution.id]),
    );
    return batch.map((_, index): Written => {
      const executionId = written.get(index);
      if (executionId === undefined) return { expired: "the deadline passed before the execution was written" };
      if (late.has(index)) return { expired: "the deadline passed before the commit" };
      return { executionId };
    });
  }

  const submit = createGroupCommit(write, { maxBatch });
  return {
    enqueue: async (item) => {
      const written = await submit(item);
      if ("expired" in written) throw new DeadlineExpiredError(written.expired);
      return written.executionId;
    },
  };
}
