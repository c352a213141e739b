import { index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { ownedBy, timestamptz } from "./columns.ts";
import { accounts, workspaces } from "./identity.ts";
import { projects } from "./projects.ts";

/**
 * Which identity-provider tokens may be exchanged for a credential of one project: tokens of
 * `issuer` for `audience` whose `sub` and claims match. At least one of `subject` and `claims` is
 * set, or every token of the issuer would be trusted. Patterns are exact strings or `*` globs.
 */
export const federationPolicies = pgTable(
  "federation_policies",
  {
    id: text("id").primaryKey(),
    workspaceId: ownedBy("workspace_id", () => workspaces.id),
    projectId: ownedBy("project_id", () => projects.id),
    issuer: text("issuer").notNull(),
    audience: text("audience").notNull(),
    subject: text("subject"),
    claims: jsonb("claims").$type<Record<string, string>>(),
    scopes: text("scopes").array().notNull(),
    maxTtlSeconds: integer("max_ttl_seconds").notNull(),
    /** The admin who vouched for these tokens: the credentials act inside the project in their name. */
    createdByAccountId: ownedBy("created_by_account_id", () => accounts.id),
    createdAt: timestamptz("created_at").notNull(),
  },
  (table) => [index().on(table.projectId, table.id), index().on(table.workspaceId, table.id)],
);
