import type { Usage, UsageFigures } from "@weft/contract";
import { type SQL, sql } from "drizzle-orm";
import type { Database, Transaction } from "../db/database.ts";
import { executions, projects, usageDaily, usageDeltas } from "../db/schema/index.ts";
import { unfinishedCondition } from "../engine/execution-state/status-conditions.ts";
import { sqlRows } from "../engine/sql-rows.ts";
import { utcDayOf } from "./billing-month.ts";

export interface UsageRequest {
  workspaceId: string;
  from: Date;
  to: Date;
  groupBy: "day" | "project";
}

export interface MeterRow {
  day: string;
  projectId: string;
  triggerKind: string;
  executions: number;
  stepMs: number;
  bytes: number;
  events: number;
}

export interface MeterRange {
  /** Every workspace when absent. */
  workspaceId?: string | undefined;
  /** The first and last UTC days (`YYYY-MM-DD`), both included. */
  fromDay: string;
  toDay: string;
}

/**
 * The meters as rows (workspace_id, project_id, day, trigger_kind, executions, step_ms, bytes, events):
 * `usage_daily`, plus the deltas no worker has rolled up yet, plus the executions that have not
 * ended, each one started with its input's bytes (its deltas are appended when it ends). Read in
 * one statement, it is exact at any time: a roll-up moves deltas into `usage_daily` in one
 * transaction and an execution's end appends its deltas in the one that ends it, so a statement
 * sees each on one side or the other, never both, never neither. Pending deltas are few (a roll-up
 * runs every second) and unfinished executions are read from the engine's partial indexes.
 */
export function meterSource(range: MeterRange): SQL {
  const rolledUpIn =
    range.workspaceId === undefined ? sql`true` : sql`${usageDaily.workspaceId} = ${range.workspaceId}`;
  const pendingIn = range.workspaceId === undefined ? sql`true` : sql`p.workspace_id = ${range.workspaceId}`;
  return sql`(select ${usageDaily.workspaceId} as workspace_id, ${usageDaily.projectId} as project_id,
      ${usageDaily.day} as day, ${usageDaily.triggerKind} as trigger_kind, ${usageDaily.executions} as executions,
      ${usageDaily.stepMs} as step_ms, ${usageDaily.bytes} as bytes, ${usageDaily.events} as events
    from ${usageDaily}
    where ${rolledUpIn} and ${usageDaily.day} >= ${range.fromDay}::date and ${usageDaily.day} <= ${range.toDay}::date
    union all
    select p.workspace_id, d.project_id, (d.at at time zone 'UTC')::date, d.trigger_kind, d.executions, d.step_ms, d.bytes,
      d.events
    from ${usageDeltas} d join ${projects} p on p.id = d.project_id
    where ${pendingIn} and d.at >= ${range.fromDay}::date::timestamp at time zone 'UTC'
      and d.at < (${range.toDay}::date + 1)::timestamp at time zone 'UTC'
    union all
    select p.workspace_id, e.project_id, (e.created_at at time zone 'UTC')::date, e.trigger_kind, 1, 0,
      coalesce(octet_length(e.input::text), 0), 0
    from ${executions} e join ${projects} p on p.id = e.project_id
    where ${pendingIn} and ${unfinishedCondition} and e.created_at >= ${range.fromDay}::date::timestamp at time zone 'UTC'
      and e.created_at < (${range.toDay}::date + 1)::timestamp at time zone 'UTC')`;
}

/** The meter rows of a workspace for its UTC days from `fromDay` to `toDay`, both included. */
export async function readMeterRows(
  db: Database | Transaction,
  range: MeterRange & { workspaceId: string },
): Promise<MeterRow[]> {
  return sqlRows<MeterRow>(
    db,
    sql`select m.day::text as day, m.project_id as "projectId", m.trigger_kind as "triggerKind",
        sum(m.executions)::int as executions, sum(m.step_ms)::float8 as "stepMs", sum(m.bytes)::float8 as bytes,
        sum(m.events)::int as events
      from ${meterSource(range)} m
      group by m.day, m.project_id, m.trigger_kind
      order by m.day, m.project_id, m.trigger_kind`,
  );
}

function emptyFigures(): UsageFigures {
  return { executions: 0, executionsByTrigger: {}, stepSeconds: 0, bytes: 0, events: 0 };
}

/** Adds a meter row to figures; step time is summed in milliseconds and shown in seconds. */
function add(figures: UsageFigures, row: MeterRow): void {
  const kind = row.triggerKind as keyof UsageFigures["executionsByTrigger"];
  figures.executions += row.executions;
  figures.executionsByTrigger[kind] = (figures.executionsByTrigger[kind] ?? 0) + row.executions;
  figures.stepSeconds = (Math.round(figures.stepSeconds * 1000) + row.stepMs) / 1000;
  figures.bytes += row.bytes;
  figures.events += row.events;
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
  if (byDay) {
    // Every day of the range, in order, those without usage with zeros: a chart's axis needs no gaps filled.
    const days = utcDaysFrom(utcDayOf(request.from), utcDayOf(request.to));
    return {
      workspaceId: request.workspaceId,
      from: request.from.toISOString(),
      to: request.to.toISOString(),
      groupBy: request.groupBy,
      totals,
      rows: days.map((day) => ({ day, ...(groups.get(day) ?? emptyFigures()) })),
    };
  }
  return {
    workspaceId: request.workspaceId,
    from: request.from.toISOString(),
    to: request.to.toISOString(),
    groupBy: request.groupBy,
    totals,
    rows: [...groups].map(([key, figures]) => (byDay ? { day: key, ...figures } : { projectId: key, ...figures })),
  };
}

/** The UTC days (`YYYY-MM-DD`) from `fromDay` to `toDay`, both included (the contract bounds a range to 400). */
function utcDaysFrom(fromDay: string, toDay: string): string[] {
  const days: string[] = [];
  for (let day = Date.parse(`${fromDay}T00:00:00.000Z`); ; day += 86_400_000) {
    const iso = new Date(day).toISOString().slice(0, 10);
    if (iso > toDay) return days;
    days.push(iso);
  }
}
