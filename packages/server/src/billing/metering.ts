import { type SQL, sql } from "drizzle-orm";
import type { Transaction } from "../db/database.ts";

/**
 * The meters (usage_daily) move inside the statements that change executions, never in writes of
 * their own: the executions a group commit inserts are counted by that same statement, and an
 * execution's step time and stored bytes by the statement that ends it. A batch of 500 webhooks is
 * one upsert per (project, day, trigger kind); a counter can neither miss a committed execution nor
 * count one twice, however many processes write. Rows are upserted in key order so that two
 * concurrent batches lock them in the same order and cannot deadlock.
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

const utcDay = (instant: SQL) => sql`((${instant}) at time zone 'UTC')::date`;

/** A CTE counting the executions of the CTE `inserted_executions` and the bytes of their inputs. */
export const meterStartedExecutions = sql`metered_starts as (
  insert into usage_daily (workspace_id, project_id, day, trigger_kind, executions, bytes)
  select p.workspace_id, e.project_id, ${utcDay(sql`e.created_at`)}, e.trigger_kind, count(*)::int,
    coalesce(sum(e.input_bytes), 0)::bigint
  from inserted_executions e join projects p on p.id = e.project_id
  group by p.workspace_id, e.project_id, ${utcDay(sql`e.created_at`)}, e.trigger_kind
  order by e.project_id, ${utcDay(sql`e.created_at`)}, e.trigger_kind
  on conflict (project_id, day, trigger_kind) do update set
    executions = usage_daily.executions + excluded.executions, bytes = usage_daily.bytes + excluded.bytes
  returning 1)`;

/**
 * Takes back the count of executions inserted and then deleted in the same transaction (a group
 * commit's submissions whose caller was answered 503 before the commit).
 */
export async function unmeterStartedExecutions(tx: Transaction, executionIds: readonly string[]): Promise<void> {
  await tx.execute(sql`update usage_daily u set executions = u.executions - x.executions, bytes = u.bytes - x.bytes
    from (select project_id, ${utcDay(sql`created_at`)} as day, trigger_kind, count(*)::int as executions,
            coalesce(sum(octet_length(input::text)), 0)::bigint as bytes
          from executions where id in (select jsonb_array_elements_text(${JSON.stringify(executionIds)}::jsonb))
          group by 1, 2, 3) x
    where u.project_id = x.project_id and u.day = x.day and u.trigger_kind = x.trigger_kind`);
}

/**
 * A CTE adding, for the execution the CTE `changed` just ended (it returns id, project_id,
 * trigger_kind, output), its step time (stored step spans plus `bufferedStepMs` of spans written by
 * the same statement) and the bytes of its output and step results, to the day it ended.
 */
export function meterEndedExecution(now: string, bufferedStepMs: number): SQL {
  return sql`metered_end as (
    insert into usage_daily (workspace_id, project_id, day, trigger_kind, step_ms, bytes)
    select p.workspace_id, changed.project_id, ${utcDay(sql`${now}::timestamptz`)}, changed.trigger_kind,
      coalesce((select sum(greatest(1, ceil(extract(epoch from (s.end_time - s.start_time)) * 1000 / ${stepRoundingMs})) * ${stepRoundingMs})
        from spans s where s.execution_id = changed.id and s.kind = 'step' and s.end_time is not null), 0)::bigint
        + ${bufferedStepMs}::bigint,
      (coalesce(octet_length(changed.output::text), 0)
        + coalesce((select sum(octet_length(r.result::text)) from execution_steps r where r.execution_id = changed.id), 0))::bigint
    from changed join projects p on p.id = changed.project_id
    on conflict (project_id, day, trigger_kind) do update set
      step_ms = usage_daily.step_ms + excluded.step_ms, bytes = usage_daily.bytes + excluded.bytes
    returning 1)`;
}
