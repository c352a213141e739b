import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { genericPlanRows } from "../db/generic-plan.ts";
import { leasedState } from "../engine/execution-state/execution-states.ts";
import { readyStates } from "../engine/execution-state/status-conditions.ts";
import { statusIn } from "../engine/execution-state/transition-condition.ts";

/**
 * Executions of workflows without a concurrency limit that one reading looks at, oldest first.
 * Past them it sees no further: a backlog this long of one account hides the others' until it
 * drains, which errs towards refusing nobody (docs/decisions/0108-backpressure-before-the-queue-grows.md).
 */
export const unlimitedExecutionsRead = 10_000;

/** Concurrency-limited workflows (project, workflow) with ready executions that one reading looks at. */
export const limitedWorkflowsRead = 1_000;

/** A workspace's queue at one reading. */
export interface WorkspaceQueue {
  workspaceId: string;
  /**
   * How many of its executions of workflows without a limit were ready (their `run_at` come), or
   * `undefined` when the reading stopped counting at `unlimitedExecutionsRead` entries of the queue.
   */
  queued: number | undefined;
  /** How long the oldest of them had waited, in milliseconds (0 when none is ready). */
  oldestWaitedMs: number;
}

/** What one reading of the queue found. */
export interface QueueReading {
  /**
   * The projects of every workspace whose oldest ready execution has waited longer than the wait
   * the reading reads from (`waitedPastMs`), unless its own workflow's concurrency limit is what
   * holds it, each with that execution's wait in milliseconds.
   */
  backlogged: ReadonlyMap<string, number>;
  /**
   * The longest such wait of an execution the claim loop could start now (its account
   * below its share of a worker, its workflow below its limit), if one has waited that long.
   */
  saturatedWaitMs: number | undefined;
  /** The projects of every workspace with a ready execution of a workflow without a limit, or a backlog, each with its workspace's queue (one object for all the projects of a workspace). */
  queues: ReadonlyMap<string, WorkspaceQueue>;
}

interface QueueRow {
  project_id: string;
  workspace_id: string;
  /** Its workspace's oldest wait past `waitedPastMs`, if it has one. */
  oldest: Date | string | null;
  queued: number | null;
  /** The oldest `run_at` among them, if one is ready. */
  first: Date | string | null;
  at_share: boolean;
}

interface QueueReadingRequest {
  now: Date;
  /** Executions that have waited this long or less are not read. */
  waitedPastMs: number;
  slotsPerAccount: number;
}

/**
 * The statement that reads which workspaces have a ready execution (queued, sleeping or waiting,
 * its `run_at` come) that has waited longer than `waitedPastMs`, and whether such an execution could
 * start now. Through the queue's partial indexes only, so what finished (any amount of it) is never
 * read:
 * - workflows without a limit: `executions_ready_idx` from its oldest entry to that wait, at most
 *   `unlimitedExecutionsRead` entries; nothing at all while the queue turns over within it;
 * - limited workflows: the oldest entry of each in `executions_limited_groups_idx`, one probe per
 *   workflow, kept only when the workflow runs fewer executions than its limit: a queue that waits
 *   for its own limit is what its owner asked for, however long;
 * - running executions per account (`executions_leased_idx`), to tell the backlogs an account's
 *   share holds back (at least `slotsPerAccount` running, on any worker) from those that could start;
 * - the whole ready queue of workflows without a limit, counted per workspace
 *   (`executions_ready_idx` again, at most `unlimitedExecutionsRead` entries): a queue that turns
 *   over quickly is short, and a long one is what backpressure keeps within the bound.
 */
export function queueReadingStatement(request: QueueReadingRequest): SQL {
  const now = request.now.toISOString();
  const arrivedBefore = new Date(request.now.getTime() - request.waitedPastMs).toISOString();
  const ready = statusIn(readyStates, "e.status");
  return sql`with recursive limited as (
      (select e.project_id, e.workflow, e.run_at, e.concurrency_limit, 1 as probes from executions e
        where ${ready} and e.concurrency_limit is not null
        order by e.project_id, e.workflow, e.run_at limit 1)
      union all
      select later.project_id, later.workflow, later.run_at, later.concurrency_limit, limited.probes + 1
      from limited cross join lateral (
        select e.project_id, e.workflow, e.run_at, e.concurrency_limit from executions e
        where ${ready} and e.concurrency_limit is not null
          and (e.project_id, e.workflow) > (limited.project_id, limited.workflow)
        order by e.project_id, e.workflow, e.run_at limit 1) later
      where limited.probes < ${limitedWorkflowsRead}::int
    ),
    waited as (
      (select e.project_id, e.run_at from executions e
        where ${ready} and e.concurrency_limit is null and e.run_at < ${arrivedBefore}::timestamptz
        order by e.run_at limit ${unlimitedExecutionsRead}::int)
      union all
      select limited.project_id, limited.run_at from limited
      where limited.run_at < ${arrivedBefore}::timestamptz and limited.concurrency_limit > (
        select count(*) from executions r
        where r.project_id = limited.project_id and r.workflow = limited.workflow and ${statusIn([leasedState], "r.status")})
    ),
    backlogged as (
      select p.workspace_id, min(waited.run_at) as oldest from waited join projects p on p.id = waited.project_id
      group by p.workspace_id
    ),
    queued as (
      select e.project_id, e.run_at from executions e
      where ${ready} and e.concurrency_limit is null and e.run_at <= ${now}::timestamptz
      order by e.run_at limit ${unlimitedExecutionsRead}::int
    ),
    queued_per_workspace as (
      select p.workspace_id, count(*)::int as queued, min(queued.run_at) as first
      from queued join projects p on p.id = queued.project_id
      group by p.workspace_id
    ),
    seen as (select workspace_id from backlogged union select workspace_id from queued_per_workspace),
    busy as (
      select w.billing_account_id as account_id, count(*)::int as running from executions r
        join projects p on p.id = r.project_id join workspaces w on w.id = p.workspace_id
      where ${statusIn([leasedState], "r.status")} group by w.billing_account_id
    )
    select p.id as project_id, seen.workspace_id, backlogged.oldest,
      case when (select count(*) from queued) < ${unlimitedExecutionsRead}::int then coalesce(queued_per_workspace.queued, 0) end as queued,
      queued_per_workspace.first,
      coalesce(busy.running, 0) >= ${request.slotsPerAccount}::int as at_share
    from seen join workspaces w on w.id = seen.workspace_id
      join projects p on p.workspace_id = seen.workspace_id
      left join backlogged on backlogged.workspace_id = seen.workspace_id
      left join queued_per_workspace on queued_per_workspace.workspace_id = seen.workspace_id
      left join busy on busy.account_id = w.billing_account_id`;
}

/** Reads the queue (`queueReadingStatement`): the backlogged projects with their waits, whether one could start now, and each workspace's queue. */
export async function readQueue(db: Database, request: QueueReadingRequest): Promise<QueueReading> {
  const rows = await genericPlanRows<QueueRow>(db, queueReadingStatement(request));
  const backlogged = new Map<string, number>();
  const queues = new Map<string, WorkspaceQueue>();
  const workspaces = new Map<string, WorkspaceQueue>();
  let saturatedWaitMs: number | undefined;
  for (const row of rows) {
    let queue = workspaces.get(row.workspace_id);
    if (queue === undefined) {
      const oldestWaitedMs = row.first === null ? 0 : request.now.getTime() - new Date(row.first).getTime();
      queue = { workspaceId: row.workspace_id, queued: row.queued ?? undefined, oldestWaitedMs };
      workspaces.set(row.workspace_id, queue);
    }
    queues.set(row.project_id, queue);
    if (row.oldest === null) continue;
    const waitedMs = request.now.getTime() - new Date(row.oldest).getTime();
    backlogged.set(row.project_id, waitedMs);
    if (!row.at_share) saturatedWaitMs = Math.max(saturatedWaitMs ?? 0, waitedMs);
  }
  return { backlogged, saturatedWaitMs, queues };
}
