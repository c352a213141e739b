import { index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { accounts, workspaces } from "./identity.ts";
import { projects } from "./projects.ts";

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/**
 * Which identity-provider tokens may be exchanged for a credential of one project: tokens of
 * `issuer` for `audience` whose `sub` and claims match. At least one of `subject` and `claims` is
 * set, or every token of the issuer would be trusted. Patterns are exact strings or `*` globs.
 */
export const federationPolicies = pgTable(
  "federation_policies",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    projectId: text("project_id")
      .notNull()
      .references(() => projects.id, { onDelete: "cascade" }),
    issuer: text("issuer").notNull(),
    audience: text("audience").notNull(),
    subject: text("subject"),
    claims: jsonb("claims").$type<Record<string, string>>(),
    scopes: text("scopes").array().notNull(),
    maxTtlSeconds: integer("max_ttl_seconds").notNull(),
    /** The admin who vouched for these tokens: the credentials act inside the project in their name. */
    createdByAccountId: text("created_by_account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    createdAt: timestamptz("created_at").notNull(),
  },
  (table) => [index().on(table.projectId, table.id), index().on(table.workspaceId, table.id)],
);
