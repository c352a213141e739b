import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { type ExecutionStatus, executions } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import { ConflictError, NotFoundError, notFoundMessage } from "../shared/service-errors.ts";
import type { SpanExport } from "../traces/otlp-export.ts";
import { cancellationsChannel } from "./channels.ts";
import { endAttempt, errorJson } from "./execution-transitions.ts";

const finalStatuses: readonly ExecutionStatus[] = ["succeeded", "failed", "cancelled"];

/**
 * Cancels an execution. A queued or sleeping one is cancelled at once (and its spans go to the
 * OTLP collector, as a worker sends those of the executions it finishes); a running one is flagged
 * and its worker (told by NOTIFY, or at its next heartbeat) stops it at the next step boundary.
 */
export async function cancelExecution(
  db: Database,
  deps: { clock: Clock; spanExport?: SpanExport | undefined },
  request: { executionId: string; projectId?: string | undefined },
): Promise<{ status: ExecutionStatus }> {
  const outcome = await cancelInTransaction(db, deps, request);
  if (outcome.status === "cancelled") deps.spanExport?.exportExecution(request.executionId);
  return outcome;
}

function cancelInTransaction(
  db: Database,
  deps: { clock: Clock },
  request: { executionId: string; projectId?: string | undefined },
): Promise<{ status: ExecutionStatus }> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select({ id: executions.id, projectId: executions.projectId, status: executions.status })
      .from(executions)
      .where(eq(executions.id, request.executionId))
      .for("update");
    if (row === undefined || (request.projectId !== undefined && row.projectId !== request.projectId)) {
      throw new NotFoundError(notFoundMessage("execution"));
    }
    if (finalStatuses.includes(row.status)) {
      throw new ConflictError(
        `the execution has already ${row.status === "cancelled" ? "been cancelled" : row.status}`,
      );
    }
    const now = deps.clock.now();
    if (row.status === "running") {
      await tx.update(executions).set({ cancelRequestedAt: now }).where(eq(executions.id, row.id));
      await tx.execute(sql`select pg_notify(${cancellationsChannel}, ${row.id})`);
      return { status: "running" };
    }
    const error = { name: "CancelledError", message: "the execution was cancelled" };
    await endAttempt(
      tx,
      { executionId: row.id, condition: sql`status in ('queued', 'sleeping')` },
      {
        now,
        attemptSpanId: undefined,
        attemptStatus: { code: "error" },
        logs: [],
        set: sql`status = 'cancelled', cancel_requested_at = ${now.toISOString()}::timestamptz,
          error = ${errorJson(error)}, finished_at = ${now.toISOString()}::timestamptz`,
        final: { code: "error", message: error.message },
      },
    );
    return { status: "cancelled" };
  });
}
