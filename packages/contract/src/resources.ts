import * as z from "zod";
import { jsonSchemaSchema, jsonValueSchema } from "./manifest.ts";
import { connectionPageInput, pageOf } from "./pagination.ts";
import { procedure } from "./procedure.ts";
import { projectIdSchema } from "./projects.ts";

/** Largest page of `resources.list`. */
export const resourcesPageLimit = 200;

export const resourceKinds = ["workflow", "form", "webhook", "schedule"] as const;
export const resourceKindSchema = z.enum(resourceKinds);
export type ResourceKind = z.infer<typeof resourceKindSchema>;

const common = {
  name: z.string(),
  /** The active deployment the definition comes from. */
  deploymentId: z.string(),
};

export const workflowResourceSchema = z.object({
  kind: z.literal("workflow"),
  ...common,
  inputSchema: jsonSchemaSchema.nullable(),
});

export const formResourceSchema = z.object({
  kind: z.literal("form"),
  ...common,
  workflow: z.string(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  visibility: z.enum(["public", "internal"]),
  disabled: z.boolean(),
  /** Whether the form asks for a username and password (the credentials themselves are never returned). */
  basicAuth: z.boolean(),
  schema: jsonSchemaSchema,
  urls: z.object({
    /** The hosted HTML page (GET) that also accepts its own POST; null for an internal form. */
    page: z.string().nullable(),
    /** The programmatic JSON endpoint (POST); null for an internal form. */
    programmatic: z.string().nullable(),
  }),
});

export const webhookResourceSchema = z.object({
  kind: z.literal("webhook"),
  ...common,
  /** The workflow a call starts, or null for a webhook that sends `event`. */
  workflow: z.string().nullable(),
  event: z.string().nullable(),
  /** The header that must carry the shared secret, or null when the webhook has none. */
  secretHeader: z.string().nullable(),
  urls: z.object({ webhook: z.string() }),
});

/** A schedule as deployed; whether it is paused and when it runs next is in `schedules.list`. */
export const scheduleResourceSchema = z.object({
  kind: z.literal("schedule"),
  ...common,
  workflow: z.string(),
  cron: z.string(),
  timezone: z.string(),
  /** The `enabled` of the config (a pause through the API does not change it). */
  enabled: z.boolean(),
  input: z.record(z.string(), jsonValueSchema).nullable(),
});

export const resourceSchema = z.discriminatedUnion("kind", [
  workflowResourceSchema,
  formResourceSchema,
  webhookResourceSchema,
  scheduleResourceSchema,
]);
export type Resource = z.infer<typeof resourceSchema>;

/**
 * The `resources` namespace: what a project's active deployment defines, with the public address of
 * each form and webhook, so that the CLI and agents can find them.
 */
export const resourcesContract = {
  list: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({ summary: "List the workflows, forms, webhooks and schedules a project has deployed", tags: ["resources"] })
    .input(
      z
        .object({
          projectId: projectIdSchema,
          kind: resourceKindSchema.optional(),
          ...connectionPageInput({ maxPageSize: resourcesPageLimit }),
        })
        .strict(),
    )
    .output(pageOf(resourceSchema)),
  get: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({ summary: "Read one deployed workflow, form, webhook or schedule", tags: ["resources"] })
    .input(z.object({ projectId: projectIdSchema, kind: resourceKindSchema, name: z.string().min(1) }).strict())
    .output(resourceSchema),
};
