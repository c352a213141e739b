import { and, eq, inArray, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Database, Transaction } from "../db/database.ts";
import { preparedSql } from "../db/prepared-sql.ts";
import { type ExecutionError, executionSteps, executions, type LogEntry } from "../db/schema/index.ts";
import { jsonParam, relaxedCommit, relaxedCommitUsed, relaxTransactionCommit, sqlRows } from "./sql-rows.ts";

/**
 * The statements a worker issues while it holds an execution's lease. Each is one round trip and
 * takes effect only while the lease is still this worker's: a worker that lost its lease (it was
 * presumed dead and another took over) can no longer change the execution.
 */

export interface Lease {
  executionId: string;
  workerId: string;
}

export interface SpanStatus {
  code: "ok" | "error";
  message?: string | undefined;
}

/** The execution row, while the lease is this worker's; its ids are values or placeholders of a prepared statement. */
const heldBy = (lease: { executionId: string | SQLWrapper; workerId: string | SQLWrapper }): SQL =>
  sql`id = ${lease.executionId} and ${leaseHeld(lease.workerId)}`;

/** What a resumed execution has stored: its steps, for replay, and their size (the per-execution storage limit counts it). */
export interface StoredHistory {
  /** Step name → step. Without a prototype, so that a step named `__proto__` is a step like any other. */
  steps: Record<string, { kind: "step" | "sleep"; result: { value?: unknown } }>;
  /** Bytes of JSON text of the stored results and step logs. */
  bytes: number;
}

/** Stored steps of resumed executions, by execution id. */
export async function loadStoredSteps(db: Database, executionIds: string[]): Promise<Map<string, StoredHistory>> {
  const byExecution = new Map<string, StoredHistory>();
  if (executionIds.length === 0) return byExecution;
  const rows = await db
    .select({
      executionId: executionSteps.executionId,
      name: executionSteps.name,
      kind: executionSteps.kind,
      result: executionSteps.result,
      bytes: sql<number>`octet_length(${executionSteps.result}::text) + octet_length(${executionSteps.logs}::text)`,
    })
    .from(executionSteps)
    .where(inArray(executionSteps.executionId, executionIds));
  for (const row of rows) {
    const history = byExecution.get(row.executionId) ?? { steps: Object.create(null), bytes: 0 };
    history.steps[row.name] = { kind: row.kind, result: row.result };
    history.bytes += Number(row.bytes);
    byExecution.set(row.executionId, history);
  }
  return byExecution;
}

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
export interface StepSpan {
  span_id: string;
  trace_id: string;
  parent_span_id: string;
  project_id: string;
  execution_id: string;
  workflow: string;
  name: string;
  start_time: string;
  end_time: string;
  attributes: Record<string, string | number | boolean>;
  status_code: "ok" | "error";
  status_message: string | null;
}

export function stepSpanOf(executionId: string, step: StepRecord): StepSpan {
  return {
    span_id: step.span.spanId,
    trace_id: step.span.traceId,
    parent_span_id: step.span.parentSpanId,
    project_id: step.span.projectId,
    execution_id: executionId,
    workflow: step.span.workflow,
    name: `step ${step.name}`,
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
      const held = heldBy({ executionId: sql.placeholder("executionId"), workerId: sql.placeholder("workerId") });
      const storeResult = stores
        ? sql`, stored as (insert into execution_steps
          (execution_id, name, kind, result, attempt, started_at, finished_at, wake_at, logs, sequence)
          select owner.id, ${sql.placeholder("name")}, 'step', ${sql.placeholder("result")}::jsonb,
            ${sql.placeholder("attempt")}::int, ${sql.placeholder("startedAt")}::timestamptz,
            ${sql.placeholder("finishedAt")}::timestamptz, null, ${sql.placeholder("logs")}::jsonb,
            ${sql.placeholder("sequence")}::int
          from owner on conflict do nothing returning 1)`
        : sql``;
      return sql`with ${relaxedCommit}, owner as (select id, cancel_requested_at from executions where ${held})${storeResult}
      select (select count(*)::int from owner) as owned, ${relaxedCommitUsed} as relaxed,
        coalesce((select cancel_requested_at is not null from owner), false) as cancel_requested`;
    },
  );
}

const recordStepStatements = { stores: recordStepStatement(true), threw: recordStepStatement(false) };

/**
 * Stores a completed step (a step that threw stores nothing). Answers whether the lease is still
 * held and whether cancellation was requested meanwhile. The step's span is written when the
 * attempt ends (see `stepSpanOf`), keeping each step to one small insert.
 */
export async function recordStep(
  db: Database,
  lease: Lease,
  step: StepRecord,
): Promise<{ owned: boolean; cancelRequested: boolean }> {
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
  return { owned: (row?.owned ?? 0) > 0, cancelRequested: row?.cancel_requested === true };
}

export interface AttemptEnd {
  now: Date;
  /** The span of the attempt being ended; none when the execution was not running. */
  attemptSpanId: string | undefined;
  attemptStatus: SpanStatus;
  logs: LogEntry[];
  /** Spans of the attempt's steps not written yet. */
  stepSpans?: StepSpan[] | undefined;
  /** Assignments to the execution row, beside releasing the lease. */
  set: SQL;
  /** For a final state: the execution span's status; usage is recorded too. */
  final?: SpanStatus | undefined;
}

/**
 * Ends the current attempt of an execution this worker holds (or, with `condition`, one in another
 * state, for cancelling queued or sleeping executions). Returns false when the lease was lost.
 */
export async function endAttempt(
  db: Database | Transaction,
  target: {
    executionId: string;
    condition: SQL;
    /** For the worker's own writes; see `relaxedCommit`. */
    relaxedCommit?: boolean | undefined;
  },
  end: AttemptEnd,
): Promise<boolean> {
  const now = end.now.toISOString();
  const stepSpans = end.stepSpans ?? [];
  const bufferedSeconds = stepSpans.reduce(
    (total, span) => total + (Date.parse(span.end_time) - Date.parse(span.start_time)) / 1000,
    0,
  );
  const flushSpans =
    stepSpans.length === 0
      ? sql``
      : sql`, step_spans as (insert into spans (span_id, trace_id, parent_span_id, project_id, execution_id, workflow,
            name, kind, start_time, end_time, attributes, status_code, status_message)
          select s.span_id, s.trace_id, s.parent_span_id, s.project_id, s.execution_id, s.workflow, s.name, 'step',
            s.start_time, s.end_time, s.attributes, s.status_code, s.status_message
          from jsonb_to_recordset(${jsonParam(stepSpans)}::jsonb) as s(span_id text, trace_id text, parent_span_id text,
            project_id text, execution_id text, workflow text, name text, start_time timestamptz, end_time timestamptz,
            attributes jsonb, status_code text, status_message text)
          where exists (select 1 from changed) returning 1)`;
  const finalParts =
    end.final === undefined
      ? sql``
      : sql`, execution_span as (update spans set end_time = ${now}::timestamptz, status_code = ${end.final.code},
            status_message = ${end.final.message ?? null}
          where span_id = (select execution_span_id from changed) returning 1),
        usage as (insert into usage_records (execution_id, project_id, workflow, executions, step_seconds, attempts, recorded_at)
          select changed.id, changed.project_id, changed.workflow, 1,
            coalesce((select sum(extract(epoch from (s.end_time - s.start_time)))::float8 from spans s
              where s.execution_id = changed.id and s.kind = 'step'), 0) + ${bufferedSeconds}::float8,
            changed.attempt, ${now}::timestamptz
          from changed on conflict do nothing returning 1)`;
  const [row] = await sqlRows<{ changed: number }>(
    db,
    sql`with ${target.relaxedCommit === true ? sql`${relaxedCommit},` : sql``} changed as (update executions set ${end.set}, lease_owner = null, lease_expires_at = null,
          logs = logs || ${jsonParam(end.logs)}::jsonb
        where id = ${target.executionId} and ${target.condition}
        returning id, project_id, workflow, attempt, execution_span_id),
      attempt_span as (update spans set end_time = ${now}::timestamptz, status_code = ${end.attemptStatus.code},
          status_message = ${end.attemptStatus.message ?? null}
        where span_id = ${end.attemptSpanId ?? ""} and exists (select 1 from changed) returning 1)${flushSpans}${finalParts}
      select count(*)::int as changed${target.relaxedCommit === true ? sql`, ${relaxedCommitUsed} as relaxed` : sql``} from changed`,
  );
  return (row?.changed ?? 0) > 0;
}

export const leaseHeld = (workerId: string | SQLWrapper): SQL => sql`lease_owner = ${workerId} and status = 'running'`;

export function errorJson(error: ExecutionError): SQL {
  return sql`${jsonParam(error)}::jsonb`;
}

/** Stores a durable sleep and releases the execution until `wakeAt`. */
export async function suspendForSleep(
  db: Database,
  lease: Lease,
  sleep: {
    name: string;
    attempt: number;
    sequence: number;
    wakeAt: Date;
    end: Omit<AttemptEnd, "set" | "final">;
  },
): Promise<boolean> {
  const now = sleep.end.now;
  return db.transaction(async (tx) => {
    await tx.execute(relaxTransactionCommit);
    const inserted = await sqlRows<{ name: string }>(
      tx,
      sql`insert into execution_steps
          (execution_id, name, kind, result, attempt, started_at, finished_at, wake_at, logs, sequence)
        select id, ${sleep.name}, 'sleep', '{}'::jsonb, ${sleep.attempt}, ${now.toISOString()}::timestamptz,
          ${now.toISOString()}::timestamptz, ${sleep.wakeAt.toISOString()}::timestamptz, '[]'::jsonb, ${sleep.sequence}
        from executions where ${heldBy(lease)}
        on conflict do nothing returning name`,
    );
    if (inserted.length === 0) return false;
    return endAttempt(
      tx,
      { executionId: lease.executionId, condition: leaseHeld(lease.workerId) },
      {
        ...sleep.end,
        set: sql`status = 'sleeping', run_at = ${sleep.wakeAt.toISOString()}::timestamptz`,
      },
    );
  });
}

/** Renews the leases of the executions a worker runs; answers those it still holds, and when a cancel was asked. */
export async function renewLeases(
  db: Database,
  request: { workerId: string; executionIds: string[]; expiresAt: Date },
): Promise<{ id: string; cancelRequestedAt: Date | null }[]> {
  if (request.executionIds.length === 0) return [];
  const rows = await db
    .update(executions)
    .set({ leaseExpiresAt: request.expiresAt })
    .where(
      and(
        eq(executions.leaseOwner, request.workerId),
        eq(executions.status, "running"),
        inArray(executions.id, request.executionIds),
      ),
    )
    .returning({ id: executions.id, cancelRequestedAt: executions.cancelRequestedAt });
  return rows;
}
