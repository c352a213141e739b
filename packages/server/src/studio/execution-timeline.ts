import type { ExecutionTimeline } from "@weft/contract";
import { and, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { executions, projects } from "../db/schema/index.ts";
import { sqlRows } from "../engine/sql-rows.ts";

export interface TimelineRequest {
  of: { projectId: string } | { workspaceId: string };
  from: Date;
  to: Date;
  bucket: "minute" | "hour" | "day";
}

/**
 * `studio.executionTimeline`: executions created in [from, to), counted per UTC bucket and status,
 * in one grouped query over the (project_id, created_at) index.
 */
export async function readExecutionTimeline(db: Database, request: TimelineRequest): Promise<ExecutionTimeline> {
  const scope =
    "projectId" in request.of
      ? eq(executions.projectId, request.of.projectId)
      : inArray(
          executions.projectId,
          db.select({ id: projects.id }).from(projects).where(eq(projects.workspaceId, request.of.workspaceId)),
        );
  const bucketOf = sql`date_trunc(${request.bucket}, ${executions.createdAt}, 'UTC')`;
  const rows = await sqlRows<{ start: string | Date; status: string; n: number }>(
    db,
    sql`select ${bucketOf} as start, ${executions.status} as status, count(*)::int as n
      from ${executions}
      where ${and(scope, gte(executions.createdAt, request.from), lt(executions.createdAt, request.to))}
      group by 1, 2 order by 1, 2`,
  );
  const buckets = new Map<string, Record<string, number>>();
  for (const row of rows) {
    const start = new Date(row.start).toISOString();
    const counts = buckets.get(start) ?? {};
    counts[row.status] = row.n;
    buckets.set(start, counts);
  }
  return { bucket: request.bucket, buckets: [...buckets].map(([start, counts]) => ({ start, counts })) };
}
