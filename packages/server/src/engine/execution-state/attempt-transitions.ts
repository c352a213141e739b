import { type SQL, sql } from "drizzle-orm";
import type { Database, Transaction } from "../../db/database.ts";
import { genericPlanStatement } from "../../db/generic-plan.ts";
import type { PreparedSql } from "../../db/prepared-sql.ts";
import type { ExecutionError, LogEntry } from "../../db/schema/index.ts";
import { cancellationsChannel } from "../channels.ts";
import { jsonParam, relaxedCommit, relaxedCommitUsed, sqlRows } from "../sql-rows.ts";
import { childEndCtes } from "./child-writes.ts";
import { type EndStatementPart, type EndStatementParts, noEndStatementParts } from "./end-statement-parts.ts";
import type { FinalTransition } from "./execution-states.ts";
import {
  closeSpans,
  endedWith,
  insertSpans,
  type SpanRow,
  type SpanStatus,
  spanEnds,
  spansFromJson,
} from "./span-writes.ts";
import { closeTokensOfEnded } from "./token-writes.ts";
import { allowedBy, setStatusOf } from "./transition-condition.ts";

/**
 * The transitions that end an attempt (`succeed`, `fail`, `retry`, `requeue`, `cancel`, `sleep`,
 * `wait`). One statement ends a batch of attempts by one transition (`sleep` and `wait`: one
 * attempt, in the transaction that stores its step or token); it changes a row only if the
 * transition table allows it from the row's state, and a running execution only while the caller
 * holds its lease: a worker that lost its lease (presumed dead, taken over) can no longer change it.
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

/** The transitions that end an attempt. */
export type EndingTransition = "succeed" | "fail" | "retry" | "requeue" | "cancel" | "expire" | "sleep" | "wait";

/** The ends a worker may group: those that store nothing beside the end (`sleep` and `wait` store a step or a token first). */
export type BatchedTransition = Exclude<EndingTransition, "sleep" | "wait">;

/** What each ending transition stores beside the attempt's close. */
export interface EndingValues {
  succeed: { value?: unknown };
  fail: { error: ExecutionError };
  /** Queues the next attempt at `runAt`, keeping the failed attempt's error on the row. */
  retry: { error: ExecutionError; runAt: Date };
  requeue: Record<never, never>;
  cancel: Record<never, never>;
  expire: Record<never, never>;
  sleep: { runAt: Date };
  /** `runAt`: the token's expiry. */
  wait: { runAt: Date };
}

/** One attempt's end: a row of the statement that ends a batch of attempts by one transition. */
export interface AttemptEnd<Name extends EndingTransition> {
  executionId: string;
  close: AttemptClose;
  values: EndingValues[Name];
}

export const cancelledError: ExecutionError = { name: "CancelledError", message: "the execution was cancelled" };

export const expiredError: ExecutionError = {
  name: "ExpiredError",
  message: "the run was not started within its time to live (ttl)",
};

/**
 * Each ending transition's assignments to the execution row, beside its status, the lease and the
 * logs, reading the end's row as `e` (the columns of `endColumns`); `withoutHolder`, those an end
 * by the API adds. A final transition also gives the execution span's status, as two expressions
 * over the ended row; no other one has one, so a final end cannot leave out its deltas.
 */
type Ending<Name extends EndingTransition> = { set: SQL; withoutHolder?: SQL } & (Name extends FinalTransition
  ? { final: { code: SQL; message: SQL } }
  : { final?: undefined });

/** The execution span's status after an end that stored an error on the row: that error's message. */
const endedWithItsError = { code: sql`'error'::text`, message: sql`error ->> 'message'` };

// `json_to_recordset` reads a JSON null as SQL NULL: an output of null (or none) is stored as JSON null, as before.
const endings: { [Name in EndingTransition]: Ending<Name> } = {
  succeed: {
    set: sql`output = coalesce(e.new_output, 'null'::jsonb), error = null, finished_at = e.ended_at`,
    final: endedWith({ code: "ok" }),
  },
  fail: {
    set: sql`error = e.new_error, finished_at = e.ended_at`,
    final: endedWithItsError,
  },
  retry: { set: sql`attempt = attempt + 1, error = e.new_error, run_at = e.new_run_at` },
  requeue: { set: sql`run_at = e.ended_at` },
  cancel: {
    set: sql`error = ${jsonParam(cancelledError)}::jsonb, finished_at = e.ended_at`,
    withoutHolder: sql`cancel_requested_at = e.ended_at`,
    final: endedWithItsError,
  },
  expire: {
    set: sql`error = ${jsonParam(expiredError)}::jsonb, finished_at = e.ended_at`,
    final: endedWithItsError,
  },
  sleep: { set: sql`run_at = e.new_run_at` },
  wait: { set: sql`run_at = case when cancel_requested_at is null then e.new_run_at else e.ended_at end` },
};

/** The row of an end, as the statement reads it; named apart from the execution's own columns. */
const endColumns = [
  "execution_id text",
  "ended_at timestamptz",
  "new_logs jsonb",
  "new_output jsonb",
  "new_error jsonb",
  "new_run_at timestamptz",
  "attempt_span_id text",
  "attempt_code text",
  "attempt_message text",
];

type WrittenSteps = NonNullable<EndStatementPart["writtenSteps"]>;

function endRow(end: AttemptEnd<EndingTransition>, written: readonly WrittenSteps[]) {
  const { close } = end;
  const values: { value?: unknown; error?: ExecutionError; runAt?: Date } = end.values;
  return {
    execution_id: end.executionId,
    ended_at: close.now.toISOString(),
    new_logs: close.logs,
    new_output: values.value ?? null,
    new_error: values.error ?? null,
    new_run_at: values.runAt?.toISOString() ?? null,
    attempt_span_id: close.attemptSpanId ?? null,
    attempt_code: close.attemptStatus.code,
    attempt_message: close.attemptStatus.message ?? null,
    ...Object.fromEntries(written.map((value) => [value.column, value.valueOf(close.stepSpans ?? [])])),
  };
}

/** The parts that join the statement of `transition` (`final`: with `final`, whether it ends the execution). */
function partsJoining(parts: EndStatementParts, transition: EndingTransition, final: boolean): EndStatementPart[] {
  return parts.filter((part) => part.ends === transition || (part.ends === "final" && final));
}

/** Who ends the attempts: a worker ends only those it holds the lease of; the API (no holder) only those no lease guards. */
export interface EndTarget<Name extends EndingTransition> {
  transition: Name;
  holder: { workerId: string } | undefined;
  /** The caller's transaction stores something that must outlive a crash: the end must not relax its commit. */
  durable?: true;
  /** What the rest of the platform records in the statement (see `EndStatementPart`). */
  parts: EndStatementParts;
}

/**
 * Ends the current attempt of each of `ends` by one transition, in one statement: the rows' new
 * state, the attempt spans closed, the buffered step spans written and, for a final state, the
 * execution spans closed and their pending wait tokens closed (their spans too), the waits of
 * invoking parents completed and, for a cancel, the children asked to cancel (`child-writes.ts`), and what
 * `target.parts` record of the ends they join (the meters, the counts, the failures to notify of):
 * the only statement that ends an execution, so all of it moves exactly when an end commits. The rows come as one JSON recordset, so the statement's text (and,
 * on PostgreSQL, its prepared plan) is the same for one end or a batch. A refused end changes
 * nothing and does not stop the others. The worker's own ends commit without waiting for the WAL
 * flush (`relaxedCommit`), unless `durable`; the API's always wait.
 */
export async function endAttempts<Name extends EndingTransition>(
  db: Database | Transaction,
  target: EndTarget<Name>,
  ends: readonly AttemptEnd<Name>[],
): Promise<TransitionOutcome[]> {
  if (ends.length === 0) return [];
  const stepSpans = ends.flatMap((end) => end.close.stepSpans ?? []);
  const { statement, written } = endStatement({
    transition: target.transition,
    byWorker: target.holder !== undefined,
    relaxed: target.holder !== undefined && target.durable !== true,
    withStepSpans: stepSpans.length > 0,
    parts: target.parts,
  });
  // In the order of their ids, as every batch of ends locks them: two batches (of two transitions)
  // locking rows of one worker in different orders could deadlock.
  const rows = [...ends]
    .sort((a, b) => (a.executionId < b.executionId ? -1 : a.executionId > b.executionId ? 1 : 0))
    .map((end) => endRow(end, written));
  const [row] = await statement.execute(db, {
    rows: jsonParam(rows),
    stepSpans: jsonParam(stepSpans),
    workerId: target.holder?.workerId ?? null,
  });
  const taken = new Set(row?.taken ?? []);
  return ends.map((end) => (taken.has(end.executionId) ? "taken" : "refused"));
}

/** What decides the text of an end statement; its values are placeholders. */
interface EndShape {
  transition: EndingTransition;
  /** A worker ends attempts it holds the lease of (`workerId`); the API, those no lease guards. */
  byWorker: boolean;
  relaxed: boolean;
  withStepSpans: boolean;
  parts: EndStatementParts;
}

interface EndStatement {
  statement: PreparedSql<{ taken: string[] }>;
  /** The values of the parts that join it, which each end's row carries. */
  written: WrittenSteps[];
}

/** The end statements of each list of parts (one per platform), by the rest of their shape. */
const endStatements = new WeakMap<EndStatementParts, Map<string, EndStatement>>();

/**
 * The statement of `shape`, built and rendered once: a worker ends an attempt at every execution,
 * and building the statement's text was a good part of an end's cost (figures in
 * docs/decisions/0135-the-end-built-once.md).
 */
function endStatement(shape: EndShape): EndStatement {
  let shapes = endStatements.get(shape.parts);
  if (shapes === undefined) {
    shapes = new Map();
    endStatements.set(shape.parts, shapes);
  }
  const key = `${shape.transition} ${shape.byWorker} ${shape.relaxed} ${shape.withStepSpans}`;
  let found = shapes.get(key);
  if (found === undefined) {
    const ending: Ending<EndingTransition> = endings[shape.transition];
    const parts = partsJoining(shape.parts, shape.transition, ending.final !== undefined);
    const written = parts.flatMap((part) => part.writtenSteps ?? []);
    found = { statement: genericPlanStatement(() => endStatementSql(shape, ending, parts, written)), written };
    shapes.set(key, found);
  }
  return found;
}

/** The text of an end statement, its values the placeholders `rows`, `stepSpans` and `workerId`. */
function endStatementSql(
  shape: EndShape,
  ending: Ending<EndingTransition>,
  parts: readonly EndStatementPart[],
  written: readonly WrittenSteps[],
): SQL {
  const flushSpans = shape.withStepSpans
    ? sql`, step_spans as (${insertSpans(sql`${spansFromJson(sql.placeholder("stepSpans"))} where s.execution_id in (select id from changed)`)} returning 1)`
    : sql``;
  const attemptSpans = spanEnds(sql`changed where attempt_span_id is not null`, {
    spanId: sql`attempt_span_id`,
    endTime: sql`ended_at`,
    code: sql`attempt_code`,
    message: sql`attempt_message`,
  });
  const tokens = closeTokensOfEnded();
  const children = childEndCtes(shape.transition === "cancel");
  const closedTokens = ending.final === undefined ? sql`` : sql`, ${tokens.cte}${children.ctes}`;
  const partCtes = sql.join(
    parts.map((part) => sql`, ${part.cte}`),
    sql``,
  );
  const columns = [...endColumns, ...written.map((value) => `${value.column} ${value.type}`)].join(", ");
  const writtenColumns = written.map((value) => `, e.${value.column}`).join("");
  const closedSpans = closeSpans(
    ending.final === undefined
      ? [attemptSpans]
      : [
          attemptSpans,
          spanEnds(sql`changed`, { spanId: sql`execution_span_id`, endTime: sql`ended_at`, ...ending.final }),
          tokens.spans,
          children.spans,
        ],
  );
  const holder = shape.byWorker ? { workerId: sql.placeholder("workerId") } : undefined;
  const set =
    holder === undefined && ending.withoutHolder !== undefined
      ? sql`${ending.set}, ${ending.withoutHolder}`
      : ending.set;
  return sql`with ${shape.relaxed ? sql`${relaxedCommit},` : sql``} changed as (update executions set ${setStatusOf(shape.transition)}, ${set},
          lease_owner = null, lease_expires_at = null, logs = logs || e.new_logs
        from json_to_recordset(${sql.placeholder("rows")}::json) as e(${sql.raw(columns)})
        where id = e.execution_id and ${allowedBy(shape.transition, holder)}
        returning id, project_id, workflow, deployment_id, attempt, execution_span_id, trigger_kind, created_at, status,
          input, output, error, parent_execution_id, parent_wait_name, e.ended_at, e.attempt_span_id, e.attempt_code, e.attempt_message${sql.raw(writtenColumns)})${flushSpans}${closedTokens},
      closed_spans as (${closedSpans} returning 1)${partCtes}
      select array(select id from changed) as taken${ending.final === undefined ? sql`` : children.selects}${shape.relaxed ? sql`, ${relaxedCommitUsed} as relaxed` : sql``}`;
}

/** Ends one attempt: `endAttempts` of one. */
export async function endAttempt<Name extends EndingTransition>(
  db: Database | Transaction,
  target: EndTarget<Name>,
  end: AttemptEnd<Name>,
): Promise<TransitionOutcome> {
  const [outcome] = await endAttempts(db, target, [end]);
  return outcome ?? "refused";
}

const holderOf = (lease: Lease) => ({ workerId: lease.workerId });

export function succeed(
  db: Database,
  parts: EndStatementParts,
  lease: Lease,
  close: AttemptClose,
  result: EndingValues["succeed"],
) {
  return endAttempt(
    db,
    { transition: "succeed", holder: holderOf(lease), parts },
    { executionId: lease.executionId, close, values: result },
  );
}

export function fail(db: Database, parts: EndStatementParts, lease: Lease, close: AttemptClose, error: ExecutionError) {
  return endAttempt(
    db,
    { transition: "fail", holder: holderOf(lease), parts },
    { executionId: lease.executionId, close, values: { error } },
  );
}

/**
 * Cancels the execution: a running one only by the worker holding `lease`; a queued, sleeping or waiting
 * one by anyone (the API, without a lease, then also records when the cancel was requested).
 */
export function cancel(
  db: Database | Transaction,
  parts: EndStatementParts,
  target: { executionId: string; lease?: Lease | undefined },
  close: AttemptClose,
) {
  return endAttempt(
    db,
    { transition: "cancel", holder: target.lease === undefined ? undefined : holderOf(target.lease), parts },
    { executionId: target.executionId, close, values: {} },
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
      // No part joins an end that leaves the execution unfinished.
      { transition: "sleep", holder: holderOf(lease), durable: true, parts: noEndStatementParts },
      { executionId: lease.executionId, close, values: { runAt: nap.wakeAt } },
    );
  });
}
