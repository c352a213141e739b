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

/** One step to record for an execution this worker holds. */
export interface StepToRecord {
  executionId: string;
  step: StepRecord;
}

/**
 * The statement of `recordSteps`: the steps arrive as one JSON array (in the order of `n`), each
 * stored when its execution is still this worker's and the step did not throw. It runs at every
 * step. The array is read as jsonb, so that a result is parsed once: read as json, each result
 * would be parsed again into its jsonb column, doubling the cost of a large one.
 */
const recordStepsStatement = preparedSql<{ owned: boolean; cancel_requested: boolean }>("record_steps", () => {
  const held = allowedBy("recordStep", { workerId: sql.placeholder("workerId") });
  return sql`${genericPlan}with input as (select * from jsonb_to_recordset(${sql.placeholder("steps")}::jsonb)
      as i(n int, execution_id text, stores boolean, name text, result jsonb, attempt int, started_at timestamptz,
        finished_at timestamptz, logs jsonb, sequence int)),
    owner as (select id, cancel_requested_at from executions
      where id in (select execution_id from input) and ${held}),
    stored as (insert into execution_steps
        (execution_id, name, kind, result, attempt, started_at, finished_at, wake_at, logs, sequence)
      select i.execution_id, i.name, 'step', i.result, i.attempt, i.started_at, i.finished_at, null, i.logs, i.sequence
      from input i join owner on owner.id = i.execution_id where i.stores
      on conflict do nothing returning 1)
    select owner.id is not null as owned, coalesce(owner.cancel_requested_at is not null, false) as cancel_requested
    from input i left join owner on owner.id = i.execution_id order by i.n`;
});

/** `refused`: the lease is no longer this worker's; nothing was stored. */
export type StepRecorded = { outcome: "taken"; cancelRequested: boolean } | { outcome: "refused" };

/**
 * The `recordStep` transition (running → running) of several steps in one prepared statement: each
 * completed step is stored (a step that threw stores nothing), and the answer says for each whether
 * cancellation was requested meanwhile. Its commit waits for the WAL flush, unlike the worker's
 * other writes: the child hears "stored" only then, so a step reported stored is never run again,
 * even after a crash of the database (on the embedded one, a SIGKILL of the process is one). The
 * steps' spans are written when their attempts end (see `stepSpanOf`), keeping each step to one
 * small row. The steps of many executions share the statement and its commit (`createBatchedSteps`).
 */
export async function recordSteps(
  db: Database,
  workerId: string,
  steps: readonly StepToRecord[],
): Promise<StepRecorded[]> {
  const rows = steps.map(({ executionId, step }, n) => ({
    n,
    execution_id: executionId,
    stores: step.outcome.ok,
    name: step.name,
    result: step.outcome.ok ? step.outcome.result : null,
    attempt: step.attempt,
    started_at: step.startedAt.toISOString(),
    finished_at: step.finishedAt.toISOString(),
    logs: step.logs,
    sequence: step.sequence,
  }));
  const answers = await recordStepsStatement.execute(db, { workerId, steps: jsonParam(rows) });
  if (answers.length !== steps.length) throw new Error(`${steps.length} steps recorded, ${answers.length} answered`);
  return answers.map((answer) =>
    answer.owned ? { outcome: "taken", cancelRequested: answer.cancel_requested } : { outcome: "refused" },
  );
}

/** `recordSteps` of one step. */
export async function recordStep(db: Database, lease: Lease, step: StepRecord): Promise<StepRecorded> {
  const [recorded] = await recordSteps(db, lease.workerId, [{ executionId: lease.executionId, step }]);
  return recorded ?? { outcome: "refused" };
}
