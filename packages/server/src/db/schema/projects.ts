import { index, integer, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { ownedBy, timestamptz } from "./columns.ts";
import { accounts, workspaces } from "./identity.ts";

/**
 * A project of a workspace: what deployments, workflows and ingress definitions belong to. Its id is
 * a time-sortable `prj_` ULID, which keyset pagination orders by.
 */
export const projects = pgTable(
  "projects",
  {
    id: text("id").primaryKey(),
    workspaceId: ownedBy("workspace_id", () => workspaces.id),
    name: text("name").notNull(),
    createdByAccountId: text("created_by_account_id").references(() => accounts.id, { onDelete: "set null" }),
    /** Days its finished executions are kept; null follows WEFT_RETENTION_DAYS. */
    retentionDays: integer("retention_days"),
    createdAt: timestamptz("created_at").notNull(),
    updatedAt: timestamptz("updated_at").notNull(),
  },
  (table) => [uniqueIndex().on(table.workspaceId, table.name), index().on(table.workspaceId, table.id)],
);
