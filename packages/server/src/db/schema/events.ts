import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { ownedBy, timestamptz } from "./columns.ts";
import { projects } from "./projects.ts";

export const eventSourceKinds = ["api", "workflow", "webhook"] as const;
export type EventSourceKind = (typeof eventSourceKinds)[number];

/**
 * An event a project sent (`events.send`, `ctx.sendEvent`, a webhook that emits one), with what its
 * send did: the executions it started, and how many it resumed and cancelled. Kept for the
 * project's retention, like finished executions.
 */
export const events = pgTable(
  "events",
  {
    id: text("id").primaryKey(),
    projectId: ownedBy("project_id", () => projects.id),
    name: text("name").notNull(),
    data: jsonb("data").$type<unknown>(),
    /** The sender's idempotency id: the same one within 24 hours is answered with this row. */
    idempotencyId: text("idempotency_id"),
    /**
     * What the idempotency id is bound to (`eventRequestDigest`): the same id with another digest
     * within 24 hours is refused. Null matches any send: an id that names the send itself (a
     * workflow step's default one), or a row stored before the digest existed.
     */
    requestDigest: text("request_digest"),
    sourceKind: text("source_kind", { enum: eventSourceKinds }).notNull(),
    /** The webhook's name, or the sending execution's id. */
    sourceName: text("source_name"),
    sentAt: timestamptz("sent_at").notNull(),
    executions: jsonb("executions").$type<{ workflow: string; executionId: string }[]>().notNull(),
    resumed: integer("resumed").notNull(),
    cancelled: integer("cancelled").notNull(),
  },
  (table) => [
    // `events.list`: a project's events newest first, on (instant, id).
    index("events_project_sent_idx").on(table.projectId, table.sentAt, table.id),
    index("events_idempotency_idx")
      .on(table.projectId, table.idempotencyId, table.sentAt)
      .where(sql`${table.idempotencyId} is not null`),
    // Retention walks events oldest first.
    index("events_sent_idx").on(table.sentAt),
  ],
);
