import type { Usage, UsageFigures } from "@weft/contract";
import { and, eq, gte, lte, sql } from "drizzle-orm";
import type { Database, Transaction } from "../db/database.ts";
import { usageDaily } from "../db/schema/index.ts";
import { utcDayOf } from "./billing-month.ts";

export interface UsageRequest {
  workspaceId: string;
  from: Date;
  to: Date;
  groupBy: "day" | "project";
}

interface MeterRow {
  day: string;
  projectId: string;
  triggerKind: string;
  executions: number;
  stepMs: number;
  bytes: number;
}

/** The meter rows of a workspace for the UTC days from `from`'s to `to`'s, both included. */
export async function readMeterRows(
  db: Database | Transaction,
  request: { workspaceId: string; fromDay: string; toDay: string },
): Promise<MeterRow[]> {
  return db
    .select({
      day: usageDaily.day,
      projectId: usageDaily.projectId,
      triggerKind: usageDaily.triggerKind,
      executions: usageDaily.executions,
      stepMs: usageDaily.stepMs,
      bytes: usageDaily.bytes,
    })
    .from(usageDaily)
    .where(
      and(
        eq(usageDaily.workspaceId, request.workspaceId),
        gte(usageDaily.day, request.fromDay),
        lte(usageDaily.day, request.toDay),
      ),
    )
    .orderBy(usageDaily.day, usageDaily.projectId, sql`${usageDaily.triggerKind}`);
}

function emptyFigures(): UsageFigures {
  return { executions: 0, executionsByTrigger: {}, stepSeconds: 0, bytes: 0 };
}

/** Adds a meter row to figures; step time is summed in milliseconds and shown in seconds. */
function add(figures: UsageFigures, row: MeterRow): void {
  const kind = row.triggerKind as keyof UsageFigures["executionsByTrigger"];
  figures.executions += row.executions;
  figures.executionsByTrigger[kind] = (figures.executionsByTrigger[kind] ?? 0) + row.executions;
  figures.stepSeconds = (Math.round(figures.stepSeconds * 1000) + row.stepMs) / 1000;
  figures.bytes += row.bytes;
}

/** Totals and groups of meter rows; a project is active when it started an execution. */
export function summarise(rows: readonly MeterRow[], key: (row: MeterRow) => string) {
  const totals = emptyFigures();
  const groups = new Map<string, UsageFigures>();
  const active = new Set<string>();
  for (const row of rows) {
    add(totals, row);
    let group = groups.get(key(row));
    if (group === undefined) {
      group = emptyFigures();
      groups.set(key(row), group);
    }
    add(group, row);
    if (row.executions > 0) active.add(row.projectId);
  }
  return { totals: { ...totals, activeProjects: active.size }, groups };
}

/** `billing.getUsage`: the meters between two instants, by UTC day or by project. */
export async function readUsage(db: Database, request: UsageRequest): Promise<Usage> {
  const rows = await readMeterRows(db, {
    workspaceId: request.workspaceId,
    fromDay: utcDayOf(request.from),
    toDay: utcDayOf(request.to),
  });
  const byDay = request.groupBy === "day";
  const { totals, groups } = summarise(rows, (row) => (byDay ? row.day : row.projectId));
  return {
    workspaceId: request.workspaceId,
    from: request.from.toISOString(),
    to: request.to.toISOString(),
    groupBy: request.groupBy,
    totals,
    rows: [...groups].map(([key, figures]) => (byDay ? { day: key, ...figures } : { projectId: key, ...figures })),
  };
}
