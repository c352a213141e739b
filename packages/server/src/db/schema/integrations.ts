import { jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { ownedBy, timestamptz } from "./columns.ts";
import { projects } from "./projects.ts";

/** One secret of an integration as stored: sealed (see `integrations/secret-sealing.ts`) with its masked hint. */
export interface StoredSecret {
  sealed: string;
  hint: string;
  /** ISO 8601. */
  changedAt: string;
  changedBy: string | null;
}

/**
 * A project's integrations. Every secret of a row is sealed under the key `key_id` names, so a key
 * rotation re-seals whole rows and finds what is left to do by `key_id`.
 */
export const integrations = pgTable(
  "integrations",
  {
    projectId: ownedBy("project_id", () => projects.id),
    name: text("name").notNull(),
    kind: text("kind", { enum: ["secret", "http", "smtp"] }).notNull(),
    config: jsonb("config").$type<Record<string, unknown>>().notNull(),
    secrets: jsonb("secrets").$type<Record<string, StoredSecret>>().notNull(),
    keyId: text("key_id").notNull(),
    createdAt: timestamptz("created_at").notNull(),
    updatedAt: timestamptz("updated_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.projectId, table.name] })],
);
