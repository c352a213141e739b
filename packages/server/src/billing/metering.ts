import { type SQL, sql } from "drizzle-orm";
import type { Transaction } from "../db/database.ts";

/**
 * The meters move inside the statements that change executions, never in writes of their own:
 * the statement that inserts queued executions appends one delta per execution, the statement that
 * ends an execution one delta with its step time and stored bytes (`usage_deltas`). A delta commits
 * exactly when its execution's change does, so a counter can neither miss a committed execution nor
 * count one twice, however many processes write; and appending (no join, no grouping, no conflict)
 * takes no lock that another commit waits on. The workers roll the deltas up (usage-roll-up.ts).
 */

/** Step time is billed per step rounded up to this; a step that ran counts at least this much. */
export const stepRoundingMs = 10;

/** Milliseconds of a step as billed. */
export function billedStepMs(startTime: string, endTime: string | null): number {
  const wall = Date.parse(endTime ?? startTime) - Date.parse(startTime);
  return Math.max(1, Math.ceil(wall / stepRoundingMs)) * stepRoundingMs;
}

/** What `inserted` (a CTE over inserted executions) must return for `meterStartedExecutions`. */
export const meteredStartColumns = sql`project_id, trigger_kind, created_at, octet_length(input::text) as input_bytes`;

/** A CTE appending a delta for each execution of the CTE `inserted_executions`: one start, its input's bytes. */
export const meterStartedExecutions = sql`metered_starts as (
  insert into usage_deltas (project_id, at, trigger_kind, executions, bytes)
  select project_id, created_at, trigger_kind, 1, coalesce(input_bytes, 0) from inserted_executions
  returning 1)`;

/**
 * Takes back the count of executions inserted and then deleted in the same transaction (a group
 * commit's submissions whose caller was answered 503 before the commit): a negative delta each, so
 * the transaction adds nothing for them.
 */
export async function unmeterStartedExecutions(tx: Transaction, executionIds: readonly string[]): Promise<void> {
  await tx.execute(sql`insert into usage_deltas (project_id, at, trigger_kind, executions, bytes)
    select project_id, created_at, trigger_kind, -1, -coalesce(octet_length(input::text), 0)
    from executions where id in (select jsonb_array_elements_text(${JSON.stringify(executionIds)}::jsonb))`);
}

/**
 * A CTE appending, for the execution the CTE `changed` just ended (it returns id, project_id,
 * trigger_kind, output), its step time (stored step spans plus `bufferedStepMs` of spans written by
 * the same statement) and the bytes of its output and step results, on the instant it ended.
 */
export function meterEndedExecution(now: string, bufferedStepMs: number): SQL {
  return sql`metered_end as (
    insert into usage_deltas (project_id, at, trigger_kind, step_ms, bytes)
    select changed.project_id, ${now}::timestamptz, changed.trigger_kind,
      coalesce((select sum(greatest(1, ceil(extract(epoch from (s.end_time - s.start_time)) * 1000 / ${stepRoundingMs})) * ${stepRoundingMs})
        from spans s where s.execution_id = changed.id and s.kind = 'step' and s.end_time is not null), 0)::bigint
        + ${bufferedStepMs}::bigint,
      (coalesce(octet_length(changed.output::text), 0)
        + coalesce((select sum(octet_length(r.result::text)) from execution_steps r where r.execution_id = changed.id), 0))::bigint
    from changed
    returning 1)`;
}
