import { sql } from "drizzle-orm";
import { boolean, index, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { ownedBy, timestamptz } from "./columns.ts";
import { deployments } from "./deployments.ts";
import { projects } from "./projects.ts";

/**
 * The schedules of each project's active deployment, replaced in the transaction that changes the
 * active deployment. `next_run_at` is the tick the firing loop waits for; a row keeps its tick,
 * its last run and an API pause across a deploy that keeps its name.
 */
export const schedules = pgTable(
  "schedules",
  {
    projectId: ownedBy("project_id", () => projects.id),
    name: text("name").notNull(),
    deploymentId: ownedBy("deployment_id", () => deployments.id),
    workflow: text("workflow").notNull(),
    cron: text("cron").notNull(),
    timezone: text("timezone").notNull(),
    input: jsonb("input").$type<Record<string, unknown>>(),
    /** `enabled` as the active deployment's config says. */
    configEnabled: boolean("config_enabled").notNull(),
    /** Whether ticks start executions: the config's `enabled`, or false after a pause through the API. */
    enabled: boolean("enabled").notNull(),
    pausedThroughApi: boolean("paused_through_api").notNull(),
    nextRunAt: timestamptz("next_run_at"),
    lastRunAt: timestamptz("last_run_at"),
    lastExecutionId: text("last_execution_id"),
    /** The latest tick that started nothing because the workspace's plan had no room left, and why. */
    lastSkippedAt: timestamptz("last_skipped_at"),
    lastSkipReason: text("last_skip_reason"),
    updatedAt: timestamptz("updated_at").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.projectId, table.name] }),
    index("schedules_due_idx").on(table.nextRunAt).where(sql`${table.enabled}`),
  ],
);

/**
 * Every tick that started an execution. Its primary key (schedule, tick) is what makes a tick start
 * exactly one execution, whichever worker process fires it and however often.
 */
export const scheduleTicks = pgTable(
  "schedule_ticks",
  {
    projectId: ownedBy("project_id", () => projects.id),
    scheduleName: text("schedule_name").notNull(),
    scheduledFor: timestamptz("scheduled_for").notNull(),
    /** No foreign key: the tick is claimed before its execution is inserted, in the same transaction. */
    executionId: text("execution_id").notNull(),
    firedAt: timestamptz("fired_at").notNull(),
  },
  (table) => [
    primaryKey({ columns: [table.projectId, table.scheduleName, table.scheduledFor] }),
    index().on(table.firedAt),
  ],
);
