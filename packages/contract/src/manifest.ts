import { z } from "zod";

/**
 * The manifest of a deployment: what `weft deploy` uploads beside the bundle, and what the server
 * validates strictly and stores. Durations are milliseconds here; schemas are JSON Schema.
 */

export const definitionNamePattern = /^[a-z][a-z0-9_-]{0,62}$/;

export const definitionNameSchema = z
  .string()
  .regex(definitionNamePattern, "must start with a lower-case letter and use only a-z, 0-9, - and _ (at most 63)");

const maxDurationMs = 7 * 24 * 60 * 60 * 1000;

/**
 * Any JSON value. One shared instance, so the OpenAPI document can describe it once, as a recursive
 * component, rather than unrolling it at every use.
 */
export const jsonValueSchema = z.json();

/** A JSON Schema document, kept as plain JSON. */
export const jsonSchemaSchema = z.record(z.string(), jsonValueSchema);
export type JsonSchema = z.infer<typeof jsonSchemaSchema>;

export const retryPolicySchema = z
  .strictObject({
    maxAttempts: z.int().min(1).max(100),
    minDelayMs: z.int().min(0).max(maxDurationMs),
    maxDelayMs: z.int().min(0).max(maxDurationMs),
  })
  .refine((policy) => policy.minDelayMs <= policy.maxDelayMs, {
    message: "minDelayMs must not exceed maxDelayMs",
    path: ["minDelayMs"],
  });

export const workflowManifestSchema = z.strictObject({
  name: definitionNameSchema,
  inputSchema: jsonSchemaSchema.optional(),
  retries: retryPolicySchema.optional(),
  timeoutMs: z.int().min(1).max(maxDurationMs).optional(),
  concurrency: z.int().min(1).max(1000).optional(),
});

const httpHeaderName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/, "must be an HTTP header name")
  .transform((header) => header.toLowerCase());

export const formManifestSchema = z.strictObject({
  name: definitionNameSchema,
  workflow: definitionNameSchema,
  title: z.string().min(1).max(200).optional(),
  description: z.string().max(2000).optional(),
  visibility: z.enum(["public", "internal"]).default("public"),
  schema: jsonSchemaSchema,
  basicAuth: z.strictObject({ username: z.string().min(1).max(128), password: z.string().min(1).max(256) }).optional(),
  disabled: z.boolean().default(false),
  /**
   * Claims the name instance-wide, so `POST {base_url}/forms/<name>` without `projectId` reaches this
   * form: first come first served, refused at deploy while another project holds it, released when
   * the form leaves the active deployment.
   */
  globalName: z.boolean().optional(),
});

export const webhookManifestSchema = z.strictObject({
  name: definitionNameSchema,
  workflow: definitionNameSchema,
  secret: z
    .strictObject({
      header: httpHeaderName,
      value: z
        .string({
          error: (issue) =>
            issue.input === undefined ? "is missing (is the environment variable that holds it set?)" : undefined,
        })
        .min(1)
        .max(512),
    })
    .optional(),
});

export const manifestLimits = {
  workflows: 200,
  forms: 200,
  webhooks: 200,
} as const;

function duplicates(names: string[]): string[] {
  return [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
}

export const manifestSchema = z
  .strictObject({
    version: z.literal(1),
    workflows: z.array(workflowManifestSchema).max(manifestLimits.workflows),
    forms: z.array(formManifestSchema).max(manifestLimits.forms).default([]),
    webhooks: z.array(webhookManifestSchema).max(manifestLimits.webhooks).default([]),
  })
  .superRefine((manifest, ctx) => {
    const workflowNames = manifest.workflows.map((workflow) => workflow.name);
    for (const [kind, names] of [
      ["workflows", workflowNames],
      ["forms", manifest.forms.map((form) => form.name)],
      ["webhooks", manifest.webhooks.map((webhook) => webhook.name)],
    ] as const) {
      for (const name of duplicates(names)) {
        ctx.addIssue({ code: "custom", path: [kind], message: `the name "${name}" is used twice` });
      }
    }
    for (const [kind, entries] of [
      ["forms", manifest.forms],
      ["webhooks", manifest.webhooks],
    ] as const) {
      entries.forEach((entry, index) => {
        if (!workflowNames.includes(entry.workflow)) {
          ctx.addIssue({
            code: "custom",
            path: [kind, index, "workflow"],
            message: `names the workflow "${entry.workflow}", which this deployment does not define`,
          });
        }
      });
    }
  });

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestInput = z.input<typeof manifestSchema>;
export type WorkflowManifest = z.infer<typeof workflowManifestSchema>;
export type FormManifest = z.infer<typeof formManifestSchema>;
export type WebhookManifest = z.infer<typeof webhookManifestSchema>;
