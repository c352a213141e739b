import * as z from "zod";
import { alertManifestSchema, alertWebhookSecretSchema } from "./alerts.ts";
import {
  formManifestSchema,
  scheduleManifestSchema,
  webhookManifestSchema,
  workflowManifestSchema,
} from "./manifest.ts";
import { pageOf } from "./pagination.ts";
import { procedure } from "./procedure.ts";
import { projectIdSchema, projectPageInput } from "./projects.ts";

/** Largest page of `deployments.list`. */
export const deploymentsPageLimit = 100;

export const deploymentIdSchema = z.string().regex(/^dep_[0-9a-z]{26}$/, "Expected a deployment id (dep_…).");

/**
 * A manifest as the platform stores and returns it: the uploaded one with every secret replaced by
 * its SHA-256 digest (the plaintext is never stored nor returned).
 */
export const storedManifestSchema = z.object({
  version: z.literal(1),
  workflows: z.array(workflowManifestSchema),
  forms: z.array(
    formManifestSchema
      .omit({ basicAuth: true })
      .extend({ basicAuth: z.object({ username: z.string(), passwordHash: z.string() }).optional() }),
  ),
  webhooks: z.array(
    webhookManifestSchema
      .omit({ secret: true })
      .extend({ secret: z.object({ header: z.string(), valueHash: z.string() }).optional() }),
  ),
  /** Absent from deployments made before schedules existed. */
  schedules: z.array(scheduleManifestSchema).optional(),
  /** Absent from deployments made before alerts existed. */
  alerts: z.array(alertManifestSchema).optional(),
});
export type StoredManifestOutput = z.infer<typeof storedManifestSchema>;

export const deploymentSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  /** 1, 2, 3 … per project. */
  number: z.int(),
  active: z.boolean(),
  manifest: storedManifestSchema,
  bundleSha256: z.string(),
  bundleBytes: z.int(),
  createdAt: z.iso.datetime(),
});
export type Deployment = z.infer<typeof deploymentSchema>;

/** The `deployments` namespace: immutable deployments (manifest + one ESM bundle) of a project. */
export const deploymentsContract = {
  create: procedure({
    scope: "deployments:write",
    mutates: true,
    mcp: { tool: false, reason: "a deployment is a bundle built by `weft deploy` from the user's repository" },
  })
    .route({ summary: "Upload a deployment and make it the active one", tags: ["deployments"] })
    .input(
      z
        .object({
          projectId: projectIdSchema,
          /** Validated strictly by the server (`manifestSchema`), each problem reported as an issue. */
          manifest: z.unknown(),
          /** One ESM file whose default export is the `defineConfig(...)` object. */
          bundle: z.string(),
        })
        .strict(),
    )
    .output(
      deploymentSchema.extend({
        /**
         * The signing secret of each webhook alert this deployment is the first to name for the
         * project: shown here once, never again (later deployments naming the URL reuse it).
         */
        alertSecrets: z.array(alertWebhookSecretSchema).optional(),
      }),
    ),
  activate: procedure({ scope: "deployments:write", mutates: true, mcp: { tool: true } })
    .route({ summary: "Make an earlier deployment the active one (rollback)", tags: ["deployments"] })
    .input(z.object({ projectId: projectIdSchema, deploymentId: deploymentIdSchema }).strict())
    .output(deploymentSchema),
  list: procedure({ scope: "deployments:read", mutates: false, mcp: { tool: true } })
    .route({ summary: "List a project's deployments, oldest first", tags: ["deployments"] })
    .input(projectPageInput({ maxPageSize: deploymentsPageLimit }))
    .output(pageOf(deploymentSchema)),
  get: procedure({ scope: "deployments:read", mutates: false, mcp: { tool: true } })
    .route({ summary: "Read one deployment", tags: ["deployments"] })
    .input(z.object({ deploymentId: deploymentIdSchema }).strict())
    .output(deploymentSchema),
};
