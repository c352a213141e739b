import { type SQL, sql } from "drizzle-orm";
import type { Transaction } from "../db/database.ts";
import type { EndStatementPart } from "../engine/execution-state/end-statement-parts.ts";
import type { SpanRow } from "../engine/execution-state/span-writes.ts";
import { unfinishedCondition } from "../engine/execution-state/status-conditions.ts";

/**
 * No write on the way in: until an execution ends, readers count it from `executions` itself
 * (`meterSource`), as one started with its input's bytes. The statement that ends it (the engine's
 * one end statement) appends both of its deltas (`meterEndedExecution`): its start (one execution
 * and its input's bytes, on the instant it was created) and its end. A statement sees an execution
 * either unfinished or ended with its deltas, never both, never neither, so a counter can neither
 * miss a committed execution nor count one twice, however many processes write. Appending (no
 * join, no grouping, no conflict) takes no lock that another commit waits on. The workers roll the
 * deltas up (usage-roll-up.ts).
 */

/** Step time is billed per step rounded up to this; a step that ran counts at least this much. */
export const stepRoundingMs = 10;

/** Milliseconds of a step as billed. */
export function billedStepMs(startTime: string, endTime: string | null): number {
  const wall = Date.parse(endTime ?? startTime) - Date.parse(startTime);
  return Math.max(1, Math.ceil(wall / stepRoundingMs)) * stepRoundingMs;
}

/** The billed milliseconds of the steps among `spans` (spans written by a worker, not stored yet). */
export function billedStepMsOf(spans: readonly Pick<SpanRow, "kind" | "start_time" | "end_time">[]): number {
  return spans
    .filter((span) => span.kind === "step")
    .reduce((total, span) => total + billedStepMs(span.start_time, span.end_time), 0);
}

/** `billedStepMs` in SQL, of a row of `spans` named `span` (a step that has ended). */
export function billedStepSql(span: string): SQL {
  const alias = sql.raw(span);
  return sql`greatest(1, ceil(extract(epoch from (${alias}.end_time - ${alias}.start_time)) * 1000 / ${stepRoundingMs})) * ${stepRoundingMs}`;
}

/**
 * The part of the engine's end statement that appends, for each execution it ends, its two deltas
 * in one insert: its start (one execution and its input's bytes, on the instant it was created) and
 * its end (its step time, from its stored step spans plus `step_ms` of the spans the same statement
 * writes, and the bytes of its output and step results, on the instant it ended).
 */
export const meterEndedExecution: EndStatementPart = {
  ends: "final",
  cte: sql`metered_end as (
    insert into usage_deltas (project_id, at, trigger_kind, executions, step_ms, bytes)
    select changed.project_id, changed.created_at, changed.trigger_kind, 1, 0,
      coalesce(octet_length(changed.input::text), 0)::bigint
    from changed
    union all
    select changed.project_id, changed.ended_at, changed.trigger_kind, 0,
      coalesce((select sum(${billedStepSql("s")})
        from spans s where s.execution_id = changed.id and s.kind = 'step' and s.end_time is not null), 0)::bigint
        + changed.step_ms,
      (coalesce(octet_length(changed.output::text), 0)
        + coalesce((select sum(octet_length(r.result::text)) from execution_steps r where r.execution_id = changed.id), 0))::bigint
    from changed
    returning 1)`,
  writtenSteps: { column: "step_ms", type: "bigint", valueOf: (stepSpans) => billedStepMsOf(stepSpans) },
};

/**
 * Counts the unfinished executions of a project about to be deleted as started: the cascade takes
 * them without an end, and after it no reader finds them. The caller holds the project's row
 * `for update`, so no execution can join it meanwhile; each counted row is locked, so one ending
 * at the same moment is counted once, by whichever commits first (once the row is gone, its end
 * changes nothing and appends nothing; a row it ended no longer matches here).
 */
export async function meterUnfinishedOfProject(tx: Transaction, projectId: string): Promise<void> {
  await tx.execute(sql`with unfinished as (
      select e.project_id, e.created_at, e.trigger_kind, e.input from executions e
      where e.project_id = ${projectId} and ${unfinishedCondition} for update)
    insert into usage_deltas (project_id, at, trigger_kind, executions, bytes)
    select e.project_id, e.created_at, e.trigger_kind, 1, coalesce(octet_length(e.input::text), 0) from unfinished e`);
}
