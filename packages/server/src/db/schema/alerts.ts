import type { FailureNotice } from "@weft/contract";
import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { ownedBy, timestamptz } from "./columns.ts";
import { projects } from "./projects.ts";

/**
 * Executions that ended `failed` under a deployment with alerts, not yet turned into a notice.
 * Written by the `fail` transition's own statement, so a failure is recorded exactly when the
 * execution commits as failed; the alert dispatcher consumes the rows.
 */
export const alertFailures = pgTable("alert_failures", {
  executionId: text("execution_id").primaryKey(),
  projectId: ownedBy("project_id", () => projects.id),
  workflow: text("workflow").notNull(),
  deploymentId: text("deployment_id").notNull(),
  failedAt: timestamptz("failed_at").notNull(),
});

/** When each workflow last got a notice: the next one waits until the window after it has passed. */
export const alertWindows = pgTable(
  "alert_windows",
  {
    projectId: ownedBy("project_id", () => projects.id),
    workflow: text("workflow").notNull(),
    lastNoticeAt: timestamptz("last_notice_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.projectId, table.workflow] })],
);

/**
 * The signing secret of each webhook URL a project's alerts have named, sealed like integration
 * secrets (binding: the project, `alerts`, the URL) under the key `key_id` names.
 */
export const alertWebhookSecrets = pgTable(
  "alert_webhook_secrets",
  {
    projectId: ownedBy("project_id", () => projects.id),
    url: text("url").notNull(),
    sealed: text("sealed").notNull(),
    keyId: text("key_id").notNull(),
    createdAt: timestamptz("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.projectId, table.url] })],
);

export const alertDeliveryStatuses = ["pending", "sent", "failed"] as const;
export type AlertDeliveryStatus = (typeof alertDeliveryStatuses)[number];

/**
 * One notice to one target (a mail address or a webhook URL) and its delivery: `pending` until it
 * is sent, retried with backoff at `next_attempt_at`; `failed` once the tries are used up or the
 * target is refused for good.
 */
export const alertDeliveries = pgTable(
  "alert_deliveries",
  {
    id: text("id").primaryKey(),
    projectId: ownedBy("project_id", () => projects.id),
    workflow: text("workflow").notNull(),
    targetKind: text("target_kind", { enum: ["mail", "webhook"] }).notNull(),
    target: text("target").notNull(),
    failures: integer("failures").notNull(),
    lastExecutionId: text("last_execution_id").notNull(),
    /** The notice as posted to a webhook (`FailureNotice`); a mail tells the same in words. */
    notice: jsonb("notice").$type<FailureNotice>().notNull(),
    status: text("status", { enum: alertDeliveryStatuses }).notNull(),
    attempts: integer("attempts").notNull(),
    nextAttemptAt: timestamptz("next_attempt_at"),
    lastError: text("last_error"),
    createdAt: timestamptz("created_at").notNull(),
    sentAt: timestamptz("sent_at"),
  },
  (table) => [
    index("alert_deliveries_due_idx").on(table.nextAttemptAt).where(sql`${table.status} = 'pending'`),
    // Retention walks it: deliveries that are over (sent or given up) go after the bookkeeping period.
    index("alert_deliveries_over_idx").on(table.createdAt).where(sql`${table.status} <> 'pending'`),
  ],
);
