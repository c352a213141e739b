import type { Statement } from "@weft/contract";
import { eq, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { type StatementProjectTotals, usageStatements } from "../db/schema/index.ts";
import {
  fetchSelectTimestampPage,
  type TimestampPage,
  type TimestampPageRequest,
} from "../db/timestamp-cursor-page.ts";
import { sqlRows } from "../engine/sql-rows.ts";
import { monthOf, utcDayOf } from "./billing-month.ts";
import { readWorkspacePlan } from "./month-usage.ts";
import type { PlanCatalogue } from "./plans.ts";
import { meterSource, readMeterRows, summarise } from "./read-usage.ts";

/**
 * Closes the month before `now` for every workspace that used anything in it: one statement each,
 * with the plan in force at closing. Any number of processes may run it at once: the primary key
 * (workspace, month) keeps the first statement written and drops the others, so a month is closed
 * exactly once. Returns how many statements this call wrote.
 */
export async function closePreviousMonth(db: Database, deps: { catalogue: PlanCatalogue; now: Date }): Promise<number> {
  const current = monthOf(deps.now);
  const previous = monthOf(new Date(current.start.getTime() - 1));
  const lastDay = utcDayOf(new Date(current.start.getTime() - 1));
  // Pending deltas and unfinished executions of the month count: a month is closed with what its
  // executions did, rolled up, pending or still under way.
  const open = await sqlRows<{ workspaceId: string }>(
    db,
    sql`select distinct m.workspace_id as "workspaceId" from ${meterSource({ fromDay: previous.day, toDay: lastDay })} m
      where not exists (select 1 from ${usageStatements} s where s.workspace_id = m.workspace_id
        and s.period_start = ${previous.start.toISOString()}::timestamptz)`,
  );
  let written = 0;
  for (const { workspaceId } of open) {
    const rows = await readMeterRows(db, { workspaceId, fromDay: previous.day, toDay: lastDay });
    const { totals, groups } = summarise(rows, (row) => row.projectId);
    const plan = (await readWorkspacePlan(db, deps.catalogue, workspaceId)) ?? { name: deps.catalogue.defaultPlan };
    const projects: StatementProjectTotals[] = [...groups].map(([projectId, figures]) => ({
      projectId,
      executions: figures.executions,
      stepSeconds: figures.stepSeconds,
      bytes: figures.bytes,
    }));
    const inserted = await db
      .insert(usageStatements)
      .values({
        workspaceId,
        periodStart: previous.start,
        plan,
        totals: {
          executions: totals.executions,
          stepSeconds: totals.stepSeconds,
          bytes: totals.bytes,
          activeProjects: totals.activeProjects,
        },
        projects,
        closedAt: deps.now,
      })
      .onConflictDoNothing()
      .returning({ workspaceId: usageStatements.workspaceId });
    written += inserted.length;
  }
  return written;
}

/** `billing.listStatements`: a workspace's closed months, newest first. */
export async function listStatements(
  db: Database,
  request: { workspaceId: string; page: TimestampPageRequest },
): Promise<TimestampPage<Statement>> {
  const page = await fetchSelectTimestampPage({
    request: request.page,
    order: { at: usageStatements.periodStart, id: usageStatements.workspaceId },
    where: eq(usageStatements.workspaceId, request.workspaceId),
    select: () => db.select().from(usageStatements).$dynamic(),
    cursorOf: (row) => ({ at: row.periodStart, id: row.workspaceId }),
  });
  return {
    next: page.next,
    rows: page.rows.map((row) => ({
      workspaceId: row.workspaceId,
      periodStart: row.periodStart.toISOString(),
      periodEnd: monthOf(row.periodStart).end.toISOString(),
      plan: row.plan,
      totals: row.totals,
      projects: row.projects,
      closedAt: row.closedAt.toISOString(),
    })),
  };
}
