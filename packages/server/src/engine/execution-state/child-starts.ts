import { sql } from "drizzle-orm";
import type { Database, Transaction } from "../../db/database.ts";
import { insertNewExecutions } from "../enqueue-execution.ts";
import { maxChildrenPerExecution } from "../limits.ts";
import type { NewExecutionRows } from "../new-execution-rows.ts";
import { sqlRows } from "../sql-rows.ts";
import type { Lease } from "./attempt-transitions.ts";
import { insertSpans } from "./span-writes.ts";
import { allowedBy } from "./transition-condition.ts";

/**
 * A child execution started by a running one, with what makes the start happen once whatever
 * replays it: for `ctx.invoke` the parent's wait of that name (a wait token naming the child, which
 * the child's end completes), for `ctx.start` a step of that name whose result is the child's id.
 * The mark and the child are written in one transaction under the parent's lease (like a step:
 * `recordStep`, running → running); a mark that exists already names the child started before.
 */
export interface ChildStart {
  name: string;
  /** `ctx.invoke`: the wait's token (its id is never handed out: only the child's end completes it). */
  wait?: { nonce: string; tokenHash: string; spanId: string; expiresAt: Date } | undefined;
  /** `ctx.start`: the step's attempt and sequence. */
  step?: { attempt: number; sequence: number } | undefined;
  /** The parent's attempt span: the child's trigger span (or the invoke's wait span) hangs under it. */
  attemptSpanId: string;
  now: Date;
  /** The child's rows, made for its workflow (`queuedExecutionRows`); written only when the start is new. */
  child: NewExecutionRows;
}

export type ChildStarted =
  | { outcome: "refused" }
  /** The parent has started `maxChildrenPerExecution` children already. */
  | { outcome: "tooMany" }
  /** The name is taken by a token or a step that started no child. */
  | { outcome: "nameTaken" }
  | { outcome: "started"; childExecutionId: string; created: boolean };

export function startChild(db: Database, lease: Lease, start: ChildStart): Promise<ChildStarted> {
  // A synchronous commit, as a step's: a child another worker ran must not vanish with its parent's record of it.
  return db
    .transaction(async (tx): Promise<ChildStarted> => {
      const now = start.now.toISOString();
      const childId = start.child.execution.id;
      const owner = sql`select id, project_id, workflow, trace_id from executions
      where id = ${lease.executionId} and ${allowedBy("recordStep", { workerId: lease.workerId })}`;
      const mark =
        start.wait !== undefined
          ? sql`inserted as (insert into wait_tokens
              (execution_id, name, project_id, token_hash, nonce, status, data, span_id, created_at, expires_at,
                finished_at, child_execution_id)
            select id, ${start.name}, project_id, ${start.wait.tokenHash}, ${start.wait.nonce}, 'pending', null,
              ${start.wait.spanId}, ${now}::timestamptz, ${start.wait.expiresAt.toISOString()}::timestamptz, null, ${childId}
            from owner on conflict do nothing returning 1),
          wait_span as (${insertSpans(sql`select ${start.wait.spanId}, trace_id, ${start.attemptSpanId}, project_id, id, workflow,
              ${`invoke ${start.name}`}, 'token', ${now}::timestamptz, null,
              jsonb_build_object('weft.token.name', ${start.name}::text, 'weft.child.execution_id', ${childId}::text,
                'weft.child.workflow', ${start.child.execution.workflow}::text), 'unset', null
            from owner where exists (select 1 from inserted)`)} returning 1)`
          : sql`inserted as (insert into execution_steps
              (execution_id, name, kind, result, attempt, started_at, finished_at, wake_at, logs, sequence)
            select id, ${start.name}, 'step', jsonb_build_object('value', ${childId}::text), ${start.step?.attempt ?? 1},
              ${now}::timestamptz, ${now}::timestamptz, null, '[]'::jsonb, ${start.step?.sequence ?? 0}
            from owner on conflict do nothing returning 1)`;
      // The subquery reads the snapshot before the insert: a name taken earlier shows its child.
      const earlier =
        start.wait !== undefined
          ? sql`(select child_execution_id from wait_tokens where execution_id = ${lease.executionId} and name = ${start.name})`
          : sql`(select result ->> 'value' from execution_steps where execution_id = ${lease.executionId} and name = ${start.name}
            and kind = 'step')`;
      const [row] = await sqlRows<{ owned: number; created: number; earlier: string | null }>(
        tx,
        sql`with owner as (${owner}), ${mark}
        select (select count(*)::int from owner) as owned, (select count(*)::int from inserted) as created,
          ${earlier} as earlier`,
      );
      if (row === undefined || row.owned === 0) return { outcome: "refused" };
      if (row.created === 0) {
        if (row.earlier === null) return { outcome: "nameTaken" };
        return { outcome: "started", childExecutionId: row.earlier, created: false };
      }
      if (await startedTooMany(tx, lease.executionId, 1)) throw new TooManyChildrenError();
      const { outcomes } = await insertNewExecutions(tx, [start.child]);
      // A debounce folds the start into the execution already queued: `ctx.start` answers that one.
      const startedId = outcomes.get(childId)?.executionId ?? childId;
      if (startedId !== childId) {
        await tx.execute(sql`update execution_steps set result = jsonb_build_object('value', ${startedId}::text)
          where execution_id = ${lease.executionId} and name = ${start.name}`);
      }
      return { outcome: "started", childExecutionId: startedId, created: true };
    })
    .catch((error: unknown) => {
      if (error instanceof TooManyChildrenError) return { outcome: "tooMany" } as const;
      throw error;
    });
}

/** `ctx.invokeMany`: one wait per child, named `<name>#<index>`, all written with the children. */
export interface ChildrenStart {
  names: readonly string[];
  waits: readonly { nonce: string; tokenHash: string; spanId: string }[];
  expiresAt: Date;
  attemptSpanId: string;
  now: Date;
  children: readonly NewExecutionRows[];
}

export type ChildrenStarted =
  | { outcome: "refused" }
  | { outcome: "tooMany" }
  | { outcome: "nameTaken" }
  | { outcome: "started"; childExecutionIds: string[]; created: boolean };

/**
 * Starts the children of `ctx.invokeMany` and their parent's waits in one transaction under the
 * parent's lease: all of them or, when the first wait exists already (a replay), none, answering
 * the children started before in the order of their names.
 */
export function startChildren(db: Database, lease: Lease, start: ChildrenStart): Promise<ChildrenStarted> {
  return db
    .transaction(async (tx): Promise<ChildrenStarted> => {
      const now = start.now.toISOString();
      const given = start.names.map((name, index) => ({
        name,
        ordinal: index,
        token_hash: start.waits[index]?.tokenHash,
        nonce: start.waits[index]?.nonce,
        span_id: start.waits[index]?.spanId,
        child_id: start.children[index]?.execution.id,
        child_workflow: start.children[index]?.execution.workflow,
      }));
      const [row] = await sqlRows<{ owned: number; created: number; earlier: (string | null)[] | null }>(
        tx,
        sql`with owner as (select id, project_id, workflow, trace_id from executions
          where id = ${lease.executionId} and ${allowedBy("recordStep", { workerId: lease.workerId })}),
        given as (select * from json_to_recordset(${JSON.stringify(given)}::json)
          as g(name text, ordinal int, token_hash text, nonce text, span_id text, child_id text, child_workflow text)),
        earlier as (select g.ordinal, t.child_execution_id from given g
          left join wait_tokens t on t.execution_id = ${lease.executionId} and t.name = g.name),
        inserted as (insert into wait_tokens
            (execution_id, name, project_id, token_hash, nonce, status, data, span_id, created_at, expires_at,
              finished_at, child_execution_id)
          select owner.id, g.name, owner.project_id, g.token_hash, g.nonce, 'pending', null, g.span_id,
            ${now}::timestamptz, ${start.expiresAt.toISOString()}::timestamptz, null, g.child_id
          from owner, given g
          where not exists (select 1 from earlier where child_execution_id is not null)
          on conflict do nothing returning name),
        wait_spans as (${insertSpans(sql`select g.span_id, owner.trace_id, ${start.attemptSpanId}, owner.project_id, owner.id,
            owner.workflow, 'invoke ' || g.name, 'token', ${now}::timestamptz, null,
            jsonb_build_object('weft.token.name', g.name, 'weft.child.execution_id', g.child_id,
              'weft.child.workflow', g.child_workflow), 'unset', null
          from owner join given g on g.name in (select name from inserted)`)} returning 1)
      select (select count(*)::int from owner) as owned, (select count(*)::int from inserted) as created,
        (select count(*) from wait_spans) as spans,
        (select array_agg(child_execution_id order by ordinal) from earlier) as earlier`,
      );
      if (row === undefined || row.owned === 0) return { outcome: "refused" };
      if (row.created === 0) {
        const earlier = row.earlier ?? [];
        if (earlier.length !== start.names.length || earlier.some((id) => id === null)) return { outcome: "nameTaken" };
        return { outcome: "started", childExecutionIds: earlier as string[], created: false };
      }
      // Some names were taken by tokens of another kind: nothing of this start may stay.
      if (row.created !== start.names.length) throw new NamesTakenError();
      if (await startedTooMany(tx, lease.executionId, start.children.length)) throw new TooManyChildrenError();
      await insertNewExecutions(tx, start.children);
      return {
        outcome: "started",
        childExecutionIds: start.children.map((child) => child.execution.id),
        created: true,
      };
    })
    .catch((error: unknown) => {
      if (error instanceof NamesTakenError) return { outcome: "nameTaken" } as const;
      if (error instanceof TooManyChildrenError) return { outcome: "tooMany" } as const;
      throw error;
    });
}

/** Rolls back a batch start of which some names were taken. */
class NamesTakenError extends Error {}

/** Rolls back a start past `maxChildrenPerExecution`. */
class TooManyChildrenError extends Error {}

/**
 * Whether `adding` more children would take the parent past `maxChildrenPerExecution`: its
 * children counted through `executions_parent_idx`, no further than the bound, with the parent's
 * row locked so that the starts of one parent (a fan-out's, answered at once) count one after the
 * other. The wait rows each start writes are new: no end statement or wait holds them, so this
 * lock waits behind those (wait row, then parent) and never the other way round.
 */
async function startedTooMany(tx: Transaction, parentId: string, adding: number): Promise<boolean> {
  await tx.execute(sql`select 1 from executions where id = ${parentId} for no key update`);
  // A statement of its own, after the lock: its snapshot holds the children of the starts before.
  const [row] = await sqlRows<{ started: number }>(
    tx,
    sql`select count(*)::int as started from (select 1 from executions where parent_execution_id = ${parentId}
      limit ${maxChildrenPerExecution}) children`,
  );
  return (row?.started ?? 0) + adding > maxChildrenPerExecution;
}
