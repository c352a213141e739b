import { eq, sql } from "drizzle-orm";
import type { Database, Transaction } from "../db/database.ts";
import { countGrains, executionCountDeltas, executionCounts } from "../db/schema/index.ts";
import { jsonParam, relaxedCommit, relaxedCommitUsed, sqlRows } from "../engine/sql-rows.ts";

/** Most deltas one roll-up statement takes. */
export const countRollUpBatch = 5000;

const grainRows = sql.raw(`(values ${countGrains.map((grain) => `('${grain}')`).join(", ")}) as g(grain)`);

/**
 * Moves up to `limit` pending count deltas into `execution_counts` at every grain, in one statement:
 * the deltas are deleted and their sums added together or not at all. As with the usage roll-up,
 * `for update skip locked` lets workers roll up at once, each delta counted by exactly one, and the
 * sums are upserted in key order so that two roll-ups cannot deadlock. A crash may lose the commit
 * (it is relaxed): the deltas are then back, untouched. Returns how many deltas it took, and leaves
 * the counts it brought to zero (retention deleted their executions) to `dropEmptyCounts`.
 */
async function rollUpOnce(db: Database, limit: number): Promise<{ taken: number; emptied: EmptiedCount[] }> {
  const [row] = await sqlRows<{ taken: number; emptied: EmptiedCount[] | null }>(
    db,
    sql`with ${relaxedCommit}, taken as (
        delete from ${executionCountDeltas} where id in (
          select id from ${executionCountDeltas} order by id limit ${limit} for update skip locked)
        returning project_id, minute, status, n),
      sums as (
        select t.project_id, g.grain, date_trunc(g.grain, t.minute, 'UTC') as start, t.status, sum(t.n)::int as n
        from taken t cross join ${grainRows}
        group by 1, 2, 3, 4),
      folded as (
        insert into ${executionCounts} (project_id, grain, start, status, n)
        select project_id, grain, start, status, n from sums
        order by project_id, grain, start, status
        on conflict (project_id, grain, start, status) do update set n = ${executionCounts}.n + excluded.n
        returning project_id, grain, start, status, n)
      select (select count(*) from taken)::int as taken,
        (select jsonb_agg(jsonb_build_object('projectId', project_id, 'grain', grain, 'start', start, 'status', status))
          from folded where n = 0) as emptied,
        ${relaxedCommitUsed} as relaxed`,
  );
  return { taken: row?.taken ?? 0, emptied: row?.emptied ?? [] };
}

interface EmptiedCount {
  projectId: string;
  grain: string;
  start: string;
  status: string;
}

/**
 * Deletes counts that retention brought to zero, so that the table shrinks with the history. A
 * statement of its own (one statement cannot change a row twice); `n = 0` is checked again under
 * the row's lock, so a count another roll-up has just raised stays.
 */
async function dropEmptyCounts(db: Database, emptied: readonly EmptiedCount[]): Promise<void> {
  await db.execute(sql`delete from ${executionCounts} c
    using jsonb_to_recordset(${jsonParam(emptied)}::jsonb) as e("projectId" text, grain text, start timestamptz, status text)
    where c.project_id = e."projectId" and c.grain = e.grain and c.start = e.start and c.status = e.status and c.n = 0`);
}

/** Rolls up batches until none is left (as seen by this process); resolves with how many deltas it moved. */
export async function rollUpExecutionCounts(db: Database, batch = countRollUpBatch): Promise<number> {
  let moved = 0;
  const emptied: EmptiedCount[] = [];
  for (;;) {
    const pass = await rollUpOnce(db, batch);
    moved += pass.taken;
    emptied.push(...pass.emptied);
    if (pass.taken < batch) break;
  }
  if (emptied.length > 0) await dropEmptyCounts(db, emptied);
  return moved;
}

/** Removes a deleted project's counts and pending deltas, in the transaction that deletes it. */
export async function forgetExecutionCounts(tx: Transaction, projectId: string): Promise<void> {
  await tx.delete(executionCountDeltas).where(eq(executionCountDeltas.projectId, projectId));
  await tx.delete(executionCounts).where(eq(executionCounts.projectId, projectId));
}
