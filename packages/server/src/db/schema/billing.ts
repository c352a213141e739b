import { bigint, date, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * The meters of one project for one UTC day and one trigger kind. Executions are counted by the
 * statement that inserts them (the ingress's group commit, a run's transaction); step time and
 * bytes of outputs and step results by the statement that ends the execution. So a counter moves
 * exactly when its execution does: never twice, never lost. No foreign keys: usage already incurred
 * outlives its project.
 */
export const usageDaily = pgTable(
  "usage_daily",
  {
    workspaceId: text("workspace_id").notNull(),
    projectId: text("project_id").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    triggerKind: text("trigger_kind").notNull(),
    executions: integer("executions").notNull().default(0),
    /** Wall time of steps, each rounded up to 10 ms. */
    stepMs: bigint("step_ms", { mode: "number" }).notNull().default(0),
    /** Execution input, output and step results, as stored JSON text. */
    bytes: bigint("bytes", { mode: "number" }).notNull().default(0),
  },
  (table) => [
    primaryKey({ columns: [table.projectId, table.day, table.triggerKind] }),
    index().on(table.workspaceId, table.day),
  ],
);

export interface StatementPlan {
  name: string;
  executionsPerMonth?: number | undefined;
  stepSecondsPerMonth?: number | undefined;
  projects?: number | undefined;
  storageBytes?: number | undefined;
}

export interface StatementTotals {
  executions: number;
  stepSeconds: number;
  bytes: number;
  activeProjects: number;
}

export interface StatementProjectTotals {
  projectId: string;
  executions: number;
  stepSeconds: number;
  bytes: number;
}

/** A closed month of a workspace: written once, by whichever process closes the month first. */
export const usageStatements = pgTable(
  "usage_statements",
  {
    workspaceId: text("workspace_id").notNull(),
    /** The first instant of the month (UTC). */
    periodStart: timestamptz("period_start").notNull(),
    /** The plan in force when the month closed, with its quotas. */
    plan: jsonb("plan").$type<StatementPlan>().notNull(),
    totals: jsonb("totals").$type<StatementTotals>().notNull(),
    projects: jsonb("projects").$type<StatementProjectTotals[]>().notNull(),
    closedAt: timestamptz("closed_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.workspaceId, table.periodStart] })],
);
