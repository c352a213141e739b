import { type SQL, sql } from "drizzle-orm";
import type { Database, Transaction } from "../db/database.ts";
import { projects, usageDaily, usageDeltas } from "../db/schema/index.ts";
import { relaxedCommit, relaxedCommitUsed, sqlRows } from "../engine/sql-rows.ts";

/** Most deltas one roll-up transaction takes. */
export const usageRollUpBatch = 5000;

/** Which deltas a roll-up takes: any (a worker's pass), or those of a project being deleted. */
type RollUpScope = { kind: "any" } | { kind: "deleted project"; projectId: string; workspaceId: string };

/**
 * Moves up to `limit` pending deltas into `usage_daily`, in one statement and so one transaction:
 * the deltas are deleted and their sums added together or not at all. `for update skip locked`
 * lets any number of workers roll up at once, each taking deltas no other holds, so each delta is
 * counted exactly once whichever worker takes it. The sums are upserted in key order, so that two
 * roll-ups (whose keys overlap) lock `usage_daily` rows in the same order and cannot deadlock.
 * Returns how many deltas it took.
 */
async function rollUpOnce(db: Database | Transaction, scope: RollUpScope, limit: number): Promise<number> {
  const ofProject = scope.kind === "any" ? sql`` : sql`where project_id = ${scope.projectId}`;
  // A worker's roll-up may lose its commit in a crash: the deltas it took are then back, untouched.
  const relaxed = scope.kind === "any";
  const summed: SQL =
    scope.kind === "any"
      ? sql`select p.workspace_id, t.project_id, t.day, t.trigger_kind, t.executions, t.step_ms, t.bytes, t.events
          from sums t join ${projects} p on p.id = t.project_id`
      : sql`select ${scope.workspaceId}::text, t.project_id, t.day, t.trigger_kind, t.executions, t.step_ms, t.bytes, t.events
          from sums t`;
  const [row] = await sqlRows<{ taken: number }>(
    db,
    sql`with ${relaxed ? sql`${relaxedCommit},` : sql``} taken as (
        delete from ${usageDeltas} where id in (
          select id from ${usageDeltas} ${ofProject} order by id limit ${limit} for update skip locked)
        returning project_id, at, trigger_kind, executions, step_ms, bytes, events),
      sums as (
        select project_id, (at at time zone 'UTC')::date as day, trigger_kind, sum(executions)::int as executions,
          sum(step_ms)::bigint as step_ms, sum(bytes)::bigint as bytes,
          sum(events)::int as events
        from taken group by 1, 2, 3),
      folded as (
        insert into ${usageDaily} (workspace_id, project_id, day, trigger_kind, executions, step_ms, bytes, events)
        ${summed}
        order by t.project_id, t.day, t.trigger_kind
        on conflict (project_id, day, trigger_kind) do update set
          executions = ${usageDaily}.executions + excluded.executions,
          step_ms = ${usageDaily}.step_ms + excluded.step_ms,
          bytes = ${usageDaily}.bytes + excluded.bytes,
          events = ${usageDaily}.events + excluded.events
        returning 1)
      select (select count(*) from taken)::int as taken${relaxed ? sql`, ${relaxedCommitUsed} as relaxed` : sql``}`,
  );
  return row?.taken ?? 0;
}

/** Rolls up batches until none is left (as seen by this process); resolves with how many deltas it moved. */
export async function rollUpUsageDeltas(db: Database, batch = usageRollUpBatch): Promise<number> {
  let moved = 0;
  for (;;) {
    const taken = await rollUpOnce(db, { kind: "any" }, batch);
    moved += taken;
    if (taken < batch) return moved;
  }
}

/**
 * Folds the pending deltas of a project the transaction has just deleted, naming its workspace,
 * which a worker's roll-up reads from the project and would no longer find. Deltas another roll-up
 * holds are left to it: it started while the project still existed, and commits them.
 */
export async function rollUpDeletedProject(
  tx: Transaction,
  project: { projectId: string; workspaceId: string },
): Promise<void> {
  let taken: number;
  do taken = await rollUpOnce(tx, { kind: "deleted project", ...project }, usageRollUpBatch);
  while (taken === usageRollUpBatch);
}
