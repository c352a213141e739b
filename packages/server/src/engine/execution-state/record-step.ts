import { sql } from "drizzle-orm";
import type { Database } from "../../db/database.ts";
import { genericPlan } from "../../db/generic-plan.ts";
import { preparedSql } from "../../db/prepared-sql.ts";
import type { ExecutionError, LogEntry } from "../../db/schema/index.ts";
import { jsonParam } from "../sql-rows.ts";
import type { Lease } from "./attempt-transitions.ts";
import type { SpanRow } from "./span-writes.ts";
import { allowedBy } from "./transition-condition.ts";

export interface StepRecord {
  name: string;
  attempt: number;
  sequence: number;
  startedAt: Date;
  finishedAt: Date;
  /** Time spent in the step's own code, measured in the sandbox (sub-millisecond). */
  durationMs: number;
  logs: LogEntry[];
  span: { spanId: string; traceId: string; parentSpanId: string; projectId: string; workflow: string };
  outcome: { ok: true; result: { value?: unknown } } | { ok: false; error: ExecutionError };
}

/** A step's span, kept by the worker until its attempt ends and then written in the same statement. */
export function stepSpanOf(executionId: string, step: StepRecord): SpanRow {
  return {
    span_id: step.span.spanId,
    trace_id: step.span.traceId,
    parent_span_id: step.span.parentSpanId,
    project_id: step.span.projectId,
    execution_id: executionId,
    workflow: step.span.workflow,
    name: `step ${step.name}`,
    kind: "step",
    start_time: step.startedAt.toISOString(),
    end_time: step.finishedAt.toISOString(),
    attributes: {
      "weft.step.name": step.name,
      "weft.step.kind": "step",
      "weft.execution.attempt": step.attempt,
      "weft.step.duration_ms": step.durationMs,
      ...(step.outcome.ok
        ? {}
        : { "exception.type": step.outcome.error.name, "exception.message": step.outcome.error.message }),
    },
    status_code: step.outcome.ok ? "ok" : "error",
    status_message: step.outcome.ok ? null : step.outcome.error.message,
  };
}

/** The statement of `recordStep`, for a step that stores its result or one that threw: it runs at every step. */
function recordStepStatement(stores: boolean) {
  return preparedSql<{ owned: number; cancel_requested: boolean }>(
    stores ? "record_step" : "record_failed_step",
    () => {
      const held = sql`id = ${sql.placeholder("executionId")} and ${allowedBy("recordStep", { workerId: sql.placeholder("workerId") })}`;
      const storeResult = stores
        ? sql`, stored as (insert into execution_steps
          (execution_id, name, kind, result, attempt, started_at, finished_at, wake_at, logs, sequence)
          select owner.id, ${sql.placeholder("name")}, 'step', ${sql.placeholder("result")}::jsonb,
            ${sql.placeholder("attempt")}::int, ${sql.placeholder("startedAt")}::timestamptz,
            ${sql.placeholder("finishedAt")}::timestamptz, null, ${sql.placeholder("logs")}::jsonb,
            ${sql.placeholder("sequence")}::int
          from owner on conflict do nothing returning 1)`
        : sql``;
      return sql`${genericPlan}with owner as (select id, cancel_requested_at from executions where ${held})${storeResult}
      select (select count(*)::int from owner) as owned,
        coalesce((select cancel_requested_at is not null from owner), false) as cancel_requested`;
    },
  );
}

const recordStepStatements = { stores: recordStepStatement(true), threw: recordStepStatement(false) };

/** `refused`: the lease is no longer this worker's; nothing was stored. */
export type StepRecorded = { outcome: "taken"; cancelRequested: boolean } | { outcome: "refused" };

/**
 * The `recordStep` transition (running → running): stores a completed step (a step that threw
 * stores nothing) in one prepared statement, and answers whether cancellation was requested
 * meanwhile. Its commit waits for the WAL flush, unlike the worker's other writes: the child hears
 * "stored" only then, so a step reported stored is never run again, even after a crash of the
 * database (on the embedded one, a SIGKILL of the process is one). The step's span is written when the attempt ends (see `stepSpanOf`), keeping each
 * step to one small insert.
 */
export async function recordStep(db: Database, lease: Lease, step: StepRecord): Promise<StepRecorded> {
  const owner = { executionId: lease.executionId, workerId: lease.workerId };
  const [row] = step.outcome.ok
    ? await recordStepStatements.stores.execute(db, {
        ...owner,
        name: step.name,
        result: jsonParam(step.outcome.result),
        attempt: step.attempt,
        startedAt: step.startedAt.toISOString(),
        finishedAt: step.finishedAt.toISOString(),
        logs: jsonParam(step.logs),
        sequence: step.sequence,
      })
    : await recordStepStatements.threw.execute(db, owner);
  if ((row?.owned ?? 0) === 0) return { outcome: "refused" };
  return { outcome: "taken", cancelRequested: row?.cancel_requested === true };
}
