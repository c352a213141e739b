import { sql } from "drizzle-orm";
import type { Database, Transaction } from "../db/database.ts";
import { preparedSql } from "../db/prepared-sql.ts";
import { unfinishedCondition } from "../engine/execution-state/status-conditions.ts";
import { billedStepSql } from "./metering.ts";
import { type MonthUsage, readMonthUsage } from "./month-usage.ts";

const unmeteredStepStatement = preparedSql<{ step_ms: number }>(
  "unmetered_step_ms",
  () =>
    sql`select coalesce(sum(${billedStepSql("s")}), 0)::float8 as step_ms
      from executions e join projects p on p.id = e.project_id
      join spans s on s.execution_id = e.id and s.kind = 'step' and s.end_time is not null
      where p.workspace_id = ${sql.placeholder("workspaceId")} and ${unfinishedCondition}`,
);

/**
 * Step time the meters do not count yet: the stored steps of the workspace's executions that have
 * not ended (those of attempts that ended, or slept, or wait). The meters count an execution's
 * steps only when it ends, so without these an execution that sleeps between steps, or retries,
 * would run outside its quota for as long as it lives.
 */
export async function readUnmeteredStepMs(db: Database | Transaction, workspaceId: string): Promise<number> {
  const [row] = await unmeteredStepStatement.execute(db, { workspaceId });
  return row?.step_ms ?? 0;
}

/**
 * A workspace's use of its monthly quotas as the platform enforces them: the month's meters, and
 * the step time of its executions not ended yet. The steps of attempts running now are known only
 * to their worker until the attempt ends; the worker adds them itself (`step-quota.ts`).
 */
export async function readQuotaUsage(db: Database | Transaction, workspaceId: string, now: Date): Promise<MonthUsage> {
  const used = await readMonthUsage(db, workspaceId, now);
  const unmeteredMs = await readUnmeteredStepMs(db, workspaceId);
  return { ...used, stepSeconds: (Math.round(used.stepSeconds * 1000) + unmeteredMs) / 1000 };
}
