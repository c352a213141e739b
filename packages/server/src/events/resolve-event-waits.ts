import { sql } from "drizzle-orm";
import type { Transaction } from "../db/database.ts";
import { executionsChannel } from "../engine/channels.ts";
import { transitions } from "../engine/execution-state/execution-states.ts";
import { closeSpans, endedWith, spanEnds } from "../engine/execution-state/span-writes.ts";
import { jsonParam, sqlRows } from "../engine/sql-rows.ts";
import type { EventAsInput } from "./event-input.ts";

/**
 * Completes, in the send's transaction, every pending `ctx.waitForEvent` of the project waiting for
 * this event's name whose match holds, and makes their executions due now (the claim's `wake` takes
 * them; the worker reads the event as the wait's result when it replays the execution).
 *
 * One statement, all of it on `wait_tokens_event_waits_idx` (project, name, path, value): a
 * recursive skip scan reads the distinct match paths among the pending waits of the name (one index
 * probe each: a project's waits of one event use one or two paths), then for each path one probe
 * finds the waits whose value is the event's there. A send costs (distinct paths + 1) probes plus
 * one row per wait it completes, however many executions wait for other values of the same event.
 * A wait without `match` is stored with the path `{}` and the value `null`, so it is found the same
 * way. The rows it completes stay locked to the commit: a worker's `wait` holding one of them (its
 * transaction storing the wait) finishes first, and the completion then finds it waiting.
 */
export async function resolveEventWaits(
  tx: Transaction,
  request: { projectId: string; event: EventAsInput; now: Date },
): Promise<number> {
  const { projectId, event } = request;
  const at = request.now.toISOString();
  const pending = sql`project_id = ${projectId} and event_name = ${event.name} and status = 'pending' and event_name is not null`;
  const eventJson = sql`${jsonParam(event)}::jsonb`;
  const [row] = await sqlRows<{ completed: number }>(
    tx,
    sql`with recursive paths (path) as (
        (select event_match_path from wait_tokens where ${pending} order by event_match_path limit 1)
        union all
        select (select event_match_path from wait_tokens where ${pending} and event_match_path > paths.path
            order by event_match_path limit 1)
          from paths where paths.path is not null),
      completed as (update wait_tokens set status = 'completed', data = ${eventJson}, finished_at = ${at}::timestamptz
        from paths
        where paths.path is not null and wait_tokens.project_id = ${projectId}
          and wait_tokens.event_name = ${event.name} and wait_tokens.status = 'pending'
          and wait_tokens.event_name is not null and wait_tokens.event_match_path = paths.path
          and wait_tokens.event_match_value = (case when cardinality(paths.path) = 0 then 'null'::jsonb
            else ${eventJson} #> paths.path end)
          and wait_tokens.expires_at > ${at}::timestamptz
        returning wait_tokens.execution_id, wait_tokens.span_id),
      ended_spans as (${closeSpans([
        spanEnds(sql`completed`, {
          spanId: sql`span_id`,
          endTime: sql`${at}::timestamptz`,
          ...endedWith({ code: "ok" }),
        }),
      ])} returning 1),
      resumed as (update executions set run_at = ${at}::timestamptz from completed
        where executions.id = completed.execution_id and executions.status = ${transitions.wait.to}
        returning executions.id)
      select (select count(*)::int from completed) as completed,
        (select count(*) from ended_spans) as spans,
        case when exists (select 1 from resumed) then pg_notify(${executionsChannel},
          coalesce((select w.billing_account_id from projects p join workspaces w on w.id = p.workspace_id
            where p.id = ${projectId}), '')) end as announced`,
  );
  return row?.completed ?? 0;
}
