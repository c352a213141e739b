import { index, integer, json, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { ownedBy, timestamptz } from "./columns.ts";
import { projects } from "./projects.ts";
import type { StoredManifest } from "./stored-manifest.ts";

/**
 * An immutable deployment: the manifest (secrets hashed) and the ESM bundle of a project's code,
 * numbered 1, 2, 3 … per project. Deleting the project deletes its deployments, so its forms and
 * webhooks stop answering at once.
 */
export const deployments = pgTable(
  "deployments",
  {
    id: text("id").primaryKey(),
    projectId: ownedBy("project_id", () => projects.id),
    number: integer("number").notNull(),
    // json, not jsonb: jsonb reorders object keys, and the order of a form schema's properties is the
    // order of the hosted form's fields.
    manifest: json("manifest").$type<StoredManifest>().notNull(),
    bundle: text("bundle").notNull(),
    bundleSha256: text("bundle_sha256").notNull(),
    bundleBytes: integer("bundle_bytes").notNull(),
    createdByAccountId: text("created_by_account_id"),
    createdAt: timestamptz("created_at").notNull(),
  },
  (table) => [uniqueIndex().on(table.projectId, table.number)],
);

/** The one active deployment of each project: forms, webhooks and new runs resolve against it. */
export const activeDeployments = pgTable(
  "active_deployments",
  {
    projectId: text("project_id")
      .primaryKey()
      .references(() => projects.id, { onDelete: "cascade" }),
    deploymentId: ownedBy("deployment_id", () => deployments.id),
    activatedAt: timestamptz("activated_at").notNull(),
  },
  (table) => [index().on(table.deploymentId)],
);

/**
 * Form names claimed instance-wide (`globalName: true`): `POST {base_url}/forms/<name>` without
 * `projectId` resolves only through this table, so a name never reaches another tenant's form by
 * accident. A project's claims follow its active deployment.
 */
export const globalFormNames = pgTable(
  "global_form_names",
  {
    name: text("name").primaryKey(),
    projectId: ownedBy("project_id", () => projects.id),
    claimedAt: timestamptz("claimed_at").notNull(),
  },
  (table) => [index().on(table.projectId)],
);
