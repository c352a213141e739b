import type { Plan, QuotaName, QuotaRefusal } from "@weft/contract";
import { count, eq } from "drizzle-orm";
import type { Database, Transaction } from "../db/database.ts";
import { projects, workspaces } from "../db/schema/index.ts";
import { monthOf, utcDayOf } from "./billing-month.ts";
import { type PlanCatalogue, planOf, quotaUnits } from "./plans.ts";
import { readMeterRows, summarise } from "./read-usage.ts";

export interface MonthUsage {
  executions: number;
  stepSeconds: number;
  bytes: number;
}

/**
 * A workspace's meters summed over the UTC month that `now` falls in, pending deltas and unfinished
 * executions included.
 */
export async function readMonthUsage(db: Database | Transaction, workspaceId: string, now: Date): Promise<MonthUsage> {
  const month = monthOf(now);
  const rows = await readMeterRows(db, {
    workspaceId,
    fromDay: month.day,
    toDay: utcDayOf(new Date(month.end.getTime() - 1)),
  });
  const { totals } = summarise(rows, (row) => row.day);
  return { executions: totals.executions, stepSeconds: totals.stepSeconds, bytes: totals.bytes };
}

/** The plan a workspace is on; undefined for a workspace that does not exist. */
export async function readWorkspacePlan(
  db: Database | Transaction,
  catalogue: PlanCatalogue,
  workspaceId: string,
): Promise<Plan | undefined> {
  const [row] = await db.select({ plan: workspaces.plan }).from(workspaces).where(eq(workspaces.id, workspaceId));
  return row === undefined ? undefined : planOf(catalogue, row.plan);
}

export async function countProjects(db: Database | Transaction, workspaceId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(projects).where(eq(projects.workspaceId, workspaceId));
  return row?.n ?? 0;
}

/** The first monthly quota of the plan that `used` has reached, as a refusal; undefined while all have room. */
export function exhaustedMonthlyQuota(plan: Plan, used: MonthUsage, now: Date): QuotaRefusal | undefined {
  const resetsAt = monthOf(now).end.toISOString();
  const checks: [QuotaName, number | undefined, number][] = [
    ["executionsPerMonth", plan.executionsPerMonth, used.executions],
    ["stepSecondsPerMonth", plan.stepSecondsPerMonth, used.stepSeconds],
    ["storageBytes", plan.storageBytes, used.bytes],
  ];
  for (const [name, limit, value] of checks) {
    if (limit !== undefined && value >= limit) return { name, limit, used: value, resetsAt };
  }
  return undefined;
}

/** The one wording of a quota refusal, naming the quota and, for a monthly one, when it resets. */
export function quotaMessage(plan: Plan, quota: QuotaRefusal): string {
  const reset = quota.resetsAt === null ? "" : `; it resets at ${quota.resetsAt}`;
  return `The workspace's plan "${plan.name}" allows ${quota.limit} ${quotaUnits[quota.name]} (quota ${quota.name}) and ${quota.used} are used${reset}.`;
}
