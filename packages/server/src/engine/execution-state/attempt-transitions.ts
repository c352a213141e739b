import { type SQL, sql } from "drizzle-orm";
import { recordAlertFailure } from "../../alerts/record-failure.ts";
import { billedStepMs, meterEndedExecution } from "../../billing/metering.ts";
import type { Database, Transaction } from "../../db/database.ts";
import { genericPlanRows } from "../../db/generic-plan.ts";
import type { ExecutionError, LogEntry } from "../../db/schema/index.ts";
import { countEndedExecution } from "../../studio/count-ended-execution.ts";
import { cancellationsChannel } from "../channels.ts";
import { jsonParam, relaxedCommit, relaxedCommitUsed, sqlRows } from "../sql-rows.ts";
import type { FinalTransition, TransitionName } from "./execution-states.ts";
import { closeSpans, insertSpans, type SpanEnd, type SpanRow, type SpanStatus, spansFromJson } from "./span-writes.ts";
import { closeTokensOfEnded } from "./token-writes.ts";
import { allowedBy, setStatusOf } from "./transition-condition.ts";

/**
 * The transitions that end an attempt (`succeed`, `fail`, `retry`, `requeue`, `cancel`, `sleep`).
 * Each is one statement (`sleep`: one transaction) that changes the row only if the transition
 * table allows it from the row's state, and for a running execution only while the caller holds
 * its lease: a worker that lost its lease (presumed dead, taken over) can no longer change it.
 */

export interface Lease {
  executionId: string;
  workerId: string;
}

/** `taken`: the row changed. `refused`: its state (or the lease) did not allow it, and it is unchanged. */
export type TransitionOutcome = "taken" | "refused";

/** How the attempt being ended is closed. */
export interface AttemptClose {
  now: Date;
  /** The span of the attempt being ended; none when the execution was not running. */
  attemptSpanId: string | undefined;
  attemptStatus: SpanStatus;
  logs: LogEntry[];
  /** Spans of the attempt's steps not written yet. */
  stepSpans?: SpanRow[] | undefined;
}

interface AttemptEndOf<Transition extends TransitionName> extends AttemptClose {
  transition: Transition;
  /** Assignments to the execution row beside its status and releasing the lease. */
  set: SQL;
}

/** A final transition carries the execution span's status; no other has one. */
export type AttemptEnd =
  | (AttemptEndOf<FinalTransition> & { final: SpanStatus })
  | (AttemptEndOf<Exclude<TransitionName, FinalTransition>> & { final?: undefined });

/**
 * Ends the current attempt: the row's new state, the attempt span closed, the buffered step spans
 * written and, for a final state, the execution span closed, its pending wait tokens closed (their
 * spans too), the execution metered and counted, in one statement: the only statement that ends an
 * execution, so the meters and counts move exactly when an end commits.
 * The worker's own ends commit without waiting for the WAL flush (`relaxedCommit`), unless the
 * caller's transaction stores something that must outlive a crash (`durable`); the API's always wait.
 */
export async function endAttempt(
  db: Database | Transaction,
  target: { executionId: string; holder: { workerId: string } | undefined; durable?: true },
  end: AttemptEnd,
): Promise<TransitionOutcome> {
  const now = end.now.toISOString();
  const relaxed = target.holder !== undefined && target.durable !== true;
  const stepSpans = end.stepSpans ?? [];
  const bufferedStepMs = stepSpans
    .filter((span) => span.kind === "step")
    .reduce((total, span) => total + billedStepMs(span.start_time, span.end_time), 0);
  const flushSpans =
    stepSpans.length === 0
      ? sql``
      : sql`, step_spans as (${insertSpans(sql`${spansFromJson(jsonParam(stepSpans))} where exists (select 1 from changed)`)} returning 1)`;
  const attemptSpans: SpanEnd = {
    ids: sql`array(select ${end.attemptSpanId ?? null}::text from changed)`,
    status: end.attemptStatus,
  };
  const tokens = closeTokensOfEnded(now);
  const finalParts =
    end.final === undefined
      ? sql``
      : sql`, ${tokens.cte},
        ${meterEndedExecution(now, bufferedStepMs)},
        ${countEndedExecution()}`;
  const closedSpans = closeSpans(
    now,
    end.final === undefined
      ? [attemptSpans]
      : [attemptSpans, { ids: sql`array(select execution_span_id from changed)`, status: end.final }, tokens.spans],
  );
  const alertFailure = end.transition === "fail" ? sql`, ${recordAlertFailure(now)}` : sql``;
  const [row] = await genericPlanRows<{ changed: number }>(
    db,
    sql`with ${relaxed ? sql`${relaxedCommit},` : sql``} changed as (update executions set ${setStatusOf(end.transition)}, ${end.set},
          lease_owner = null, lease_expires_at = null, logs = logs || ${jsonParam(end.logs)}::jsonb
        where id = ${target.executionId} and ${allowedBy(end.transition, target.holder)}
        returning id, project_id, workflow, attempt, execution_span_id, trigger_kind, created_at, status, input, output)${flushSpans}${finalParts},
      closed_spans as (${closedSpans} returning 1)${alertFailure}
      select count(*)::int as changed${relaxed ? sql`, ${relaxedCommitUsed} as relaxed` : sql``} from changed`,
  );
  return (row?.changed ?? 0) > 0 ? "taken" : "refused";
}

const errorJson = (error: ExecutionError): SQL => sql`${jsonParam(error)}::jsonb`;

const holderOf = (lease: Lease) => ({ workerId: lease.workerId });

export function succeed(db: Database, lease: Lease, close: AttemptClose, result: { value?: unknown }) {
  return endAttempt(
    db,
    { executionId: lease.executionId, holder: holderOf(lease) },
    {
      ...close,
      transition: "succeed",
      set: sql`output = ${jsonParam(result.value)}::jsonb, error = null,
        finished_at = ${close.now.toISOString()}::timestamptz`,
      final: { code: "ok" },
    },
  );
}

export function fail(db: Database, lease: Lease, close: AttemptClose, error: ExecutionError) {
  return endAttempt(
    db,
    { executionId: lease.executionId, holder: holderOf(lease) },
    {
      ...close,
      transition: "fail",
      set: sql`error = ${errorJson(error)}, finished_at = ${close.now.toISOString()}::timestamptz`,
      final: { code: "error", message: error.message },
    },
  );
}

/** Queues the next attempt at `runAt`, keeping the failed attempt's error on the row. */
export function retry(db: Database, lease: Lease, close: AttemptClose, next: { error: ExecutionError; runAt: Date }) {
  return endAttempt(
    db,
    { executionId: lease.executionId, holder: holderOf(lease) },
    {
      ...close,
      transition: "retry",
      set: sql`attempt = attempt + 1, error = ${errorJson(next.error)}, run_at = ${next.runAt.toISOString()}::timestamptz`,
    },
  );
}

/** Hands the execution back to the queue, claimable at once, without using up an attempt. */
export function requeue(db: Database, lease: Lease, close: AttemptClose) {
  return endAttempt(
    db,
    { executionId: lease.executionId, holder: holderOf(lease) },
    { ...close, transition: "requeue", set: sql`run_at = ${close.now.toISOString()}::timestamptz` },
  );
}

export const cancelledError: ExecutionError = { name: "CancelledError", message: "the execution was cancelled" };

/**
 * Cancels the execution: a running one only by the worker holding `lease`; a queued, sleeping or waiting
 * one by anyone (the API, without a lease, then also records when the cancel was requested).
 */
export function cancel(
  db: Database | Transaction,
  target: { executionId: string; lease?: Lease | undefined },
  close: AttemptClose,
) {
  const now = close.now.toISOString();
  const requested = target.lease === undefined ? sql`, cancel_requested_at = ${now}::timestamptz` : sql``;
  return endAttempt(
    db,
    { executionId: target.executionId, holder: target.lease === undefined ? undefined : holderOf(target.lease) },
    {
      ...close,
      transition: "cancel",
      set: sql`error = ${errorJson(cancelledError)}, finished_at = ${now}::timestamptz${requested}`,
      final: { code: "error", message: cancelledError.message },
    },
  );
}

/**
 * Flags a running execution for cancellation and tells its worker (by NOTIFY, delivered at commit),
 * which takes `cancel` at the next step boundary. Not a transition: the state stays `running`.
 */
export async function requestCancel(tx: Transaction, request: { executionId: string; now: Date }): Promise<void> {
  await tx.execute(
    sql`update executions set cancel_requested_at = ${request.now.toISOString()}::timestamptz where id = ${request.executionId}`,
  );
  await tx.execute(sql`select pg_notify(${cancellationsChannel}, ${request.executionId})`);
}

/** Stores a durable sleep as a step and releases the execution until `wakeAt`, in one transaction. */
export function sleep(
  db: Database,
  lease: Lease,
  close: AttemptClose,
  nap: { name: string; attempt: number; sequence: number; wakeAt: Date },
): Promise<TransitionOutcome> {
  const now = close.now.toISOString();
  // A synchronous commit, as a step's: the sleep step must outlive a crash, or the workflow sleeps anew.
  return db.transaction(async (tx) => {
    const inserted = await sqlRows<{ name: string }>(
      tx,
      sql`insert into execution_steps
          (execution_id, name, kind, result, attempt, started_at, finished_at, wake_at, logs, sequence)
        select id, ${nap.name}, 'sleep', '{}'::jsonb, ${nap.attempt}, ${now}::timestamptz,
          ${now}::timestamptz, ${nap.wakeAt.toISOString()}::timestamptz, '[]'::jsonb, ${nap.sequence}
        from executions where id = ${lease.executionId} and ${allowedBy("sleep", holderOf(lease))}
        on conflict do nothing returning name`,
    );
    if (inserted.length === 0) return "refused";
    return endAttempt(
      tx,
      { executionId: lease.executionId, holder: holderOf(lease), durable: true },
      { ...close, transition: "sleep", set: sql`run_at = ${nap.wakeAt.toISOString()}::timestamptz` },
    );
  });
}
