import { type SQL, sql } from "drizzle-orm";
import { cancellationsChannel, executionsChannel } from "../channels.ts";
import { endedWith, type SpanEnds, spanEnds } from "./span-writes.ts";
import { statusIn } from "./transition-condition.ts";

/**
 * What the statement that ends executions (`endAttempts`) does for child workflows, as CTEs after
 * `changed` (which returns each ended execution's `parent_execution_id` and `parent_wait_name`):
 *
 * - `child_results`: an ended child of `ctx.invoke` completes its parent's wait with its end
 *   (`{ executionId, status, output, error }`), and `resumed_parents` makes the parent due now. The
 *   parent's row is updated from `running` too: a parent whose `wait` commits while this statement
 *   waits for the wait's row lock is `running` in this statement's snapshot, and PostgreSQL
 *   re-reads a row changed under it only when the row matched the snapshot; an update of a running
 *   row's `run_at` is overwritten by its next transition. The parents are read through an
 *   aggregate of `child_results`, which has every wait row locked before the first parent row is:
 *   `wait` locks a wait row then its parent, and a statement ending two children of one parent
 *   must not hold the parent while it waits for the other child's wait row.
 * - `cancelled_children`: a cancelled execution asks each unfinished child to cancel: a running one
 *   is told (as the API's cancel tells it), the others become due now and the claim cancels them,
 *   whose own ends cancel their children in turn.
 */
export function childEndCtes(cancelling: boolean): { ctes: SQL; spans: SpanEnds; selects: SQL } {
  const unfinished = statusIn(["queued", "sleeping", "waiting", "running"], "k.status");
  const cascade = cancelling
    ? sql`, cancelled_children as (update executions k set cancel_requested_at = c.ended_at,
          run_at = case when k.status = 'running' then k.run_at else c.ended_at end
        from changed c where k.parent_execution_id = c.id and c.status = 'cancelled' and ${unfinished}
          and k.cancel_requested_at is null
        returning k.id, k.status, k.project_id),
      child_cancel_notes as (select pg_notify(${cancellationsChannel}, id) from cancelled_children where status = 'running')`
    : sql``;
  const ctes = sql`, child_results as (update wait_tokens t set status = 'completed', finished_at = c.ended_at,
        data = jsonb_build_object('executionId', c.id, 'status', c.status, 'output', c.output, 'error', c.error)
      from changed c where c.parent_wait_name is not null and t.execution_id = c.parent_execution_id
        and t.name = c.parent_wait_name and t.status = 'pending'
      returning t.execution_id, t.span_id, c.ended_at, c.status),
    resumed_parents as (update executions p set run_at = r.ended_at
      from (select execution_id, max(ended_at) as ended_at from child_results group by execution_id) r
      where p.id = r.execution_id and ${statusIn(["waiting", "running"], "p.status")}
      returning p.id, p.project_id)${cascade},
    child_wake_notes as (select pg_notify(${executionsChannel}, coalesce(string_agg(distinct w.billing_account_id, ','), ''))
      from (select project_id from resumed_parents${cancelling ? sql` union select project_id from cancelled_children` : sql``}) due
      join projects pr on pr.id = due.project_id join workspaces w on w.id = pr.workspace_id
      having count(*) > 0)`;
  const selects = cancelling
    ? sql`, (select count(*) from child_wake_notes) as child_wakes, (select count(*) from child_cancel_notes) as child_cancels`
    : sql`, (select count(*) from child_wake_notes) as child_wakes`;
  return {
    ctes,
    spans: spanEnds(sql`child_results`, {
      spanId: sql`span_id`,
      endTime: sql`ended_at`,
      ...endedWith({ code: "ok" }),
    }),
    selects,
  };
}
