import { z } from "zod";
import { alertIssues, alertLimits, alertManifestSchema } from "./alerts.ts";
import { cronProblem, isKnownTimezone, nextTick } from "./cron-schedule.ts";
import { cancelOnSchema, eventLimits, eventNameSchema, eventSubscriptionSchema } from "./events.ts";
import { flowControlFields } from "./flow-control.ts";
import { integrationKinds, integrationNameSchema } from "./integrations.ts";

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
  /** Keyed concurrency, throttle, rate limit, debounce and priority (`flow-control.ts`). */
  ...flowControlFields,
  /** The integrations its code reads, with their kinds: a deployment is refused while the project lacks one. */
  integrations: z.record(integrationNameSchema, z.enum(integrationKinds)).optional(),
  /** The events that start it, each with the event as input (`on: [{ event, if? }]`). */
  on: z.array(eventSubscriptionSchema).max(eventLimits.subscriptionsPerWorkflow).optional(),
  /** The events that cancel its unfinished executions. */
  cancelOn: z.array(cancelOnSchema).max(eventLimits.cancelOnPerWorkflow).optional(),
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
  /** The workflow a call starts; or, with `event` instead, the event a call sends (with the call as its data). */
  workflow: definitionNameSchema.optional(),
  event: eventNameSchema.optional(),
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

/**
 * A schedule starts its workflow at each tick of a standard 5-field cron expression, read in an
 * IANA time zone, with `{ scheduledFor, ...input }` as input. `enabled: false` deploys it paused.
 */
export const scheduleManifestSchema = z.strictObject({
  name: definitionNameSchema,
  workflow: definitionNameSchema,
  cron: z.string().min(1).max(200),
  timezone: z.string().min(1).max(100).default("UTC"),
  input: z.record(z.string(), jsonValueSchema).optional(),
  enabled: z.boolean().default(true),
});

export const manifestLimits = {
  workflows: 200,
  forms: 200,
  webhooks: 200,
  schedules: 200,
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
    schedules: z.array(scheduleManifestSchema).max(manifestLimits.schedules).default([]),
    alerts: z
      .array(alertManifestSchema)
      .max(alertLimits.alerts, `at most ${alertLimits.alerts} alerts are accepted`)
      .default([]),
  })
  .superRefine((manifest, ctx) => {
    const workflowNames = manifest.workflows.map((workflow) => workflow.name);
    manifest.workflows.forEach((workflow, index) => {
      if (workflow.concurrencyKey !== undefined && workflow.concurrency === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["workflows", index, "concurrencyKey"],
          message: `workflow "${workflow.name}": a concurrency key needs a concurrency limit`,
        });
      }
    });
    for (const [kind, names] of [
      ["workflows", workflowNames],
      ["forms", manifest.forms.map((form) => form.name)],
      ["webhooks", manifest.webhooks.map((webhook) => webhook.name)],
      ["schedules", manifest.schedules.map((schedule) => schedule.name)],
    ] as const) {
      for (const name of duplicates(names)) {
        ctx.addIssue({ code: "custom", path: [kind], message: `the name "${name}" is used twice` });
      }
    }
    for (const [kind, label, entries] of [
      ["forms", "form", manifest.forms],
      ["webhooks", "webhook", manifest.webhooks],
      ["schedules", "schedule", manifest.schedules],
    ] as const) {
      entries.forEach((entry, index) => {
        if (entry.workflow !== undefined && !workflowNames.includes(entry.workflow)) {
          ctx.addIssue({
            code: "custom",
            path: [kind, index, "workflow"],
            message: `${label} "${entry.name}" names the workflow "${entry.workflow}", which this deployment does not define`,
          });
        }
      });
    }
    manifest.webhooks.forEach((webhook, index) => {
      if ((webhook.workflow === undefined) === (webhook.event === undefined)) {
        ctx.addIssue({
          code: "custom",
          path: ["webhooks", index, "workflow"],
          message: `webhook "${webhook.name}" needs either a workflow to start or an event to send, not both`,
        });
      }
    });
    manifest.alerts.forEach((alert, index) => {
      for (const issue of alertIssues(alert, index)) {
        ctx.addIssue({ code: "custom", path: ["alerts", index, ...issue.path], message: issue.message });
      }
    });
    const webhookUrls = manifest.alerts.flatMap((alert) => ("webhook" in alert ? [alert.webhook] : []));
    for (const url of duplicates(webhookUrls)) {
      ctx.addIssue({ code: "custom", path: ["alerts"], message: `the webhook "${url}" is named by two alerts` });
    }
    manifest.schedules.forEach((schedule, index) => {
      for (const issue of scheduleTimingIssues(schedule)) {
        ctx.addIssue({ code: "custom", path: ["schedules", index, issue.field], message: issue.message });
      }
    });
  });

/** What is wrong with a schedule's cron expression or time zone, each message naming the schedule. */
function scheduleTimingIssues(schedule: z.infer<typeof scheduleManifestSchema>) {
  const issues: { field: "cron" | "timezone"; message: string }[] = [];
  const label = `schedule "${schedule.name}"`;
  const cronIssue = cronProblem(schedule.cron);
  if (cronIssue !== undefined) {
    issues.push({
      field: "cron",
      message: `${label}: "${schedule.cron}" is not a 5-field cron expression (${cronIssue})`,
    });
  }
  if (!isKnownTimezone(schedule.timezone)) {
    issues.push({
      field: "timezone",
      message: `${label}: "${schedule.timezone}" is not an IANA time zone name (such as "Europe/Berlin" or "UTC")`,
    });
  }
  if (issues.length === 0 && nextTick(schedule.cron, schedule.timezone, new Date()) === null) {
    issues.push({ field: "cron", message: `${label}: "${schedule.cron}" never matches a date` });
  }
  return issues;
}

export type Manifest = z.infer<typeof manifestSchema>;
export type ManifestInput = z.input<typeof manifestSchema>;
export type WorkflowManifest = z.infer<typeof workflowManifestSchema>;
export type FormManifest = z.infer<typeof formManifestSchema>;
export type WebhookManifest = z.infer<typeof webhookManifestSchema>;
export type ScheduleManifest = z.infer<typeof scheduleManifestSchema>;
