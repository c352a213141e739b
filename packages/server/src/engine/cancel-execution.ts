import { eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { type ExecutionStatus, executions } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import type { SpanExport } from "../traces/otlp-export.ts";
import { cancel, isFinal, leasedState, requestCancel, transitions } from "./execution-state/index.ts";

/**
 * Cancels an execution. A queued, sleeping or waiting one is cancelled at once (and its spans go to the
 * OTLP collector, as a worker sends those of the executions it finishes); a running one is flagged
 * and its worker (told by NOTIFY, or at its next heartbeat) stops it at the next step boundary.
 */
export async function cancelExecution(
  db: Database,
  deps: { clock: Clock; spanExport?: SpanExport | undefined },
  request: { executionId: string; projectId?: string | undefined },
): Promise<ServiceResult<{ status: ExecutionStatus }>> {
  const outcome = await cancelInTransaction(db, deps, request);
  if (outcome.ok && outcome.value.status === "cancelled") deps.spanExport?.exportExecution(request.executionId);
  return outcome;
}

function cancelInTransaction(
  db: Database,
  deps: { clock: Clock },
  request: { executionId: string; projectId?: string | undefined },
): Promise<ServiceResult<{ status: ExecutionStatus }>> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ id: executions.id, projectId: executions.projectId, status: executions.status })
      .from(executions)
      .where(eq(executions.id, request.executionId))
      .for("update");
    if (row === undefined || (request.projectId !== undefined && row.projectId !== request.projectId)) {
      return fail.notFound("execution");
    }
    if (isFinal(row.status)) {
      return fail.conflict(`the execution has already ${row.status === "cancelled" ? "been cancelled" : row.status}`);
    }
    const now = deps.clock.now();
    if (row.status === leasedState) {
      await requestCancel(tx, { executionId: row.id, now });
      return ok({ status: row.status });
    }
    const outcome = await cancel(
      tx,
      { executionId: row.id },
      { now, attemptSpanId: undefined, attemptStatus: { code: "error" }, logs: [] },
    );
    // The row is locked: only a state the transition table does not let `cancel` leave refuses it.
    if (outcome === "refused") return fail.conflict(`an execution cannot be cancelled while ${row.status}`);
    return ok({ status: transitions.cancel.to });
  });
}
