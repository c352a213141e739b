import { bigint, bigserial, date, index, integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";

/**
 * The meters of one project for one UTC day and one trigger kind, as rolled up from `usage_deltas`
 * by the workers. No foreign keys: usage already incurred outlives its project.
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
    /** Execution input, output and step results, and events' data, as stored JSON text. */
    bytes: bigint("bytes", { mode: "number" }).notNull().default(0),
    /** Events sent (their trigger kind is `event`). */
    events: integer("events").notNull().default(0),
  },
  (table) => [
    primaryKey({ columns: [table.projectId, table.day, table.triggerKind] }),
    index().on(table.workspaceId, table.day),
  ],
);

/**
 * What an execution adds to the meters when it ends, appended by the statement that ends it: its
 * start (one execution and its input's bytes) and its end (its step time and the other stored
 * bytes); until then readers count it from `executions`. So a delta exists exactly when its
 * execution's end committed: never twice, never lost. Appending takes no row lock another writer
 * waits on, unlike an upsert of the day's counter; the workers fold the deltas into `usage_daily`
 * (billing/usage-roll-up.ts), and readers add the ones still pending. No index beyond the key, no
 * foreign key: an end pays for one append-only B-tree.
 */
export const usageDeltas = pgTable("usage_deltas", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  projectId: text("project_id").notNull(),
  /** When the execution started (executions) or ended (step time, bytes); its UTC day is the meter's. */
  at: timestamptz("at").notNull(),
  triggerKind: text("trigger_kind").notNull(),
  executions: integer("executions").notNull().default(0),
  stepMs: bigint("step_ms", { mode: "number" }).notNull().default(0),
  bytes: bigint("bytes", { mode: "number" }).notNull().default(0),
  events: integer("events").notNull().default(0),
});

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
