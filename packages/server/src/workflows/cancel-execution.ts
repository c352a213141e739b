import { eq } from "drizzle-orm";
import { type AuditedChange, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { retryOnDeadlock } from "../db/deadlock-retry.ts";
import { type ExecutionStatus, executions } from "../db/schema/index.ts";
import {
  cancel,
  type EndStatementParts,
  isFinal,
  leasedState,
  requestCancel,
  transitions,
} from "../engine/execution-state/index.ts";
import type { SpanExport } from "../engine/span-export.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";

interface CancelRequest {
  executionId: string;
  projectId?: string | undefined;
  /** Set for a cancellation through the API, which is then an audit event. */
  audit?: AuditedChange | undefined;
}

interface CancelDependencies {
  clock: Clock;
  ids: IdGenerator;
  spanExport?: SpanExport | undefined;
  /** What the features record in the statement that ends the execution (`endStatementParts`). */
  endStatementParts: EndStatementParts;
}

/**
 * Cancels an execution. A queued, sleeping or waiting one is cancelled at once (and its spans go to the
 * OTLP collector, as a worker sends those of the executions it finishes); a running one is flagged
 * and its worker (told by NOTIFY, or at its next heartbeat) stops it at the next step boundary.
 */
export async function cancelExecution(
  db: Database,
  deps: CancelDependencies,
  request: CancelRequest,
): Promise<ServiceResult<{ status: ExecutionStatus }>> {
  // The row is locked before its project's (the foreign keys of what the end writes), the opposite
  // of a project's deletion, so PostgreSQL may pick this as a deadlock's victim: it runs again.
  const outcome = await retryOnDeadlock(() => cancelInTransaction(db, deps, request));
  if (outcome.ok && outcome.value.status === "cancelled") deps.spanExport?.exportExecution(request.executionId);
  return outcome;
}

function cancelInTransaction(
  db: Database,
  deps: CancelDependencies,
  request: CancelRequest,
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
    // Recorded once the change is made: a refusal returns without writing anything.
    const audit = async () => {
      if (request.audit === undefined) return;
      await recordAuditEvent(tx, deps, {
        action: "execution.cancelled",
        targetType: "execution",
        targetId: row.id,
        workspaceId: request.audit.workspaceId,
        actor: request.audit.actor,
        data: { projectId: row.projectId, from: row.status },
      });
    };
    if (row.status === leasedState) {
      await requestCancel(tx, { executionId: row.id, now });
      await audit();
      return ok({ status: row.status });
    }
    const outcome = await cancel(
      tx,
      deps.endStatementParts,
      { executionId: row.id },
      { now, attemptSpanId: undefined, attemptStatus: { code: "error" }, logs: [] },
    );
    // The row is locked: only a state the transition table does not let `cancel` leave refuses it.
    if (outcome === "refused") return fail.conflict(`an execution cannot be cancelled while ${row.status}`);
    await audit();
    return ok({ status: transitions.cancel.to });
  });
}
