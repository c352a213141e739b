import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { type CountGrain, executionCountDeltas, executionCounts, executions, projects } from "../db/schema/index.ts";
import { endedCondition, unfinishedCondition } from "../engine/execution-state/status-conditions.ts";
import { sqlRows } from "../engine/sql-rows.ts";
import { coverRange } from "./count-range-cover.ts";

/** Whose executions: one project's, or every project's of a workspace. */
export type CountScope = { projectId: string } | { workspaceId: string };

export interface CountRequest {
  of: CountScope;
  /** Creation times counted: [from, to). */
  from: Date;
  to: Date;
  /** The bucket each count is placed in; none counts the whole range. */
  bucket: CountGrain | null;
}

export interface StatusCount {
  /** The bucket's start, or null without buckets. */
  start: Date | null;
  status: string;
  n: number;
}

/**
 * Executions created in [from, to), counted by status (and bucket), in one statement and so from one
 * snapshot: ended executions from `execution_counts` (whole buckets, coarsest first) plus the deltas
 * not yet rolled up, and plus the ended ones of the sub-minute ends counted directly; unfinished
 * executions, which change status, are counted directly from the engine's partial indexes. A
 * roll-up moves deltas into counts in one commit, so a snapshot sees each exactly once.
 */
export async function countExecutions(db: Database, request: CountRequest): Promise<StatusCount[]> {
  const cover = coverRange(request.from, request.to, request.bucket ?? "day");
  const projectIds: SQL =
    "projectId" in request.of
      ? sql`(${request.of.projectId})`
      : sql`(select ${projects.id} from ${projects} where ${projects.workspaceId} = ${request.of.workspaceId})`;
  const parts: SQL[] = [
    sql`select ${executions.createdAt} as at, ${executions.status} as status, 1 as n from ${executions}
      where ${executions.projectId} in ${projectIds} and ${unfinishedCondition}
        and ${executions.createdAt} >= ${request.from} and ${executions.createdAt} < ${request.to}`,
  ];
  for (const segment of cover.segments)
    parts.push(sql`select ${executionCounts.start}, ${executionCounts.status}, ${executionCounts.n} from ${executionCounts}
      where ${executionCounts.projectId} in ${projectIds} and ${executionCounts.grain} = ${segment.grain}
        and ${executionCounts.start} >= ${segment.from} and ${executionCounts.start} < ${segment.to}`);
  // The segments are contiguous: together they are the whole minutes of the range, where deltas count.
  const first = cover.segments[0];
  const last = cover.segments.at(-1);
  if (first !== undefined && last !== undefined)
    parts.push(sql`select ${executionCountDeltas.minute}, ${executionCountDeltas.status}, ${executionCountDeltas.n}
      from ${executionCountDeltas}
      where ${executionCountDeltas.projectId} in ${projectIds}
        and ${executionCountDeltas.minute} >= ${first.from} and ${executionCountDeltas.minute} < ${last.to}`);
  for (const end of cover.ends)
    parts.push(sql`select ${executions.createdAt}, ${executions.status}, 1 from ${executions}
      where ${executions.projectId} in ${projectIds} and ${endedCondition}
        and ${executions.createdAt} >= ${end.from} and ${executions.createdAt} < ${end.to}`);
  const bucketOf = request.bucket === null ? sql`null::timestamptz` : sql`date_trunc(${request.bucket}, at, 'UTC')`;
  const rows = await sqlRows<{ start: string | Date | null; status: string; n: number }>(
    db,
    sql`select ${bucketOf} as start, status, sum(n)::int as n from (${sql.join(parts, sql` union all `)}) as counted
      group by 1, 2 having sum(n) <> 0 order by 1, 2`,
  );
  return rows.map((row) => ({ start: row.start === null ? null : new Date(row.start), status: row.status, n: row.n }));
}
