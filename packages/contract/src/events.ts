import * as z from "zod";
import { jsonPathEqualitySchema, jsonPathSchema } from "./json-path.ts";
import { timestampPageInput, timestampPageOf } from "./pagination.ts";
import { procedure } from "./procedure.ts";
import { projectIdSchema } from "./projects.ts";

/** Largest page of `events.list`. */
export const sentEventsPageLimit = 100;

/**
 * How far one event reaches: the subscriptions (`on`) and `cancelOn` entries a workflow may declare,
 * and the executions one send may cancel. A deployment holds at most 200 workflows, so a send starts
 * at most 200 executions.
 */
export const eventLimits = {
  subscriptionsPerWorkflow: 20,
  cancelOnPerWorkflow: 20,
  cancelledPerSend: 1000,
} as const;

export const eventNamePattern = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;

export const eventNameSchema = z
  .string()
  .regex(eventNamePattern, "must start with a letter or digit and use only A-Z, a-z, 0-9, . _ : / - (at most 128)");

/** An event's idempotency id: the same id within 24 hours answers the first send if its name and data are the same, and is refused otherwise. */
export const eventIdempotencyIdSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, "must be printable ASCII without spaces");

export const sentEventIdSchema = z.string().regex(/^evn_[0-9a-z]{26}$/, "Expected an event id (evn_…).");

/** `on: [{ event, if? }]`: each send of `event` (whose value at `if.path` is `if.equals`) starts the workflow. */
export const eventSubscriptionSchema = z.strictObject({
  event: eventNameSchema,
  if: jsonPathEqualitySchema.optional(),
});

/**
 * `cancelOn: [{ event, match? }]`: an event named `event` cancels the workflow's unfinished executions;
 * with `match`, only those whose input holds at `match.input` what the event holds at `match.event`.
 */
export const cancelOnSchema = z.strictObject({
  event: eventNameSchema,
  match: z.strictObject({ event: jsonPathSchema, input: jsonPathSchema }).optional(),
});

export type EventSubscription = z.infer<typeof eventSubscriptionSchema>;
export type CancelOnEntry = z.infer<typeof cancelOnSchema>;

export const eventSourceKinds = ["api", "workflow", "webhook"] as const;

export const startedExecutionSchema = z.object({ workflow: z.string(), executionId: z.string() });

export const sentEventSchema = z.object({
  id: z.string(),
  projectId: z.string(),
  name: z.string(),
  data: z.unknown(),
  /** The idempotency id it was sent with, if any. */
  idempotencyId: z.string().nullable(),
  source: z.object({ kind: z.enum(eventSourceKinds), name: z.string().nullable() }),
  sentAt: z.iso.datetime(),
  /** The executions its subscriptions started. */
  executions: z.array(startedExecutionSchema),
  /** Waiting executions it resumed (`ctx.waitForEvent`), and executions it cancelled (`cancelOn`). */
  resumed: z.int(),
  cancelled: z.int(),
});

export const sendEventOutputSchema = sentEventSchema.extend({
  /** True when an earlier send with the same idempotency id is answered: this one did nothing. */
  duplicate: z.boolean(),
  /** Subscribed workflows this send did not start, as their input schema refuses the event. */
  skipped: z.array(z.object({ workflow: z.string(), message: z.string() })),
});

/** The `events` namespace: events a project sends, which start, resume and cancel its executions. */
export const eventsContract = {
  send: procedure({ scope: "projects:write", mutates: true, mcp: { tool: true } })
    .route({
      summary: "Send an event: starts the subscribed workflows, resumes the executions waiting for it",
      description:
        "Starts every workflow of the active deployment subscribed to the event (`on`) with the event as input, resumes the executions waiting for it (`ctx.waitForEvent`) and cancels those it cancels (`cancelOn`), all at once. With `id`, a second send within 24 hours with the same name and data answers the first one's result and does nothing; one with another name or data is refused (CONFLICT) and does nothing.",
      tags: ["events"],
    })
    .input(
      z
        .object({
          projectId: projectIdSchema,
          name: eventNameSchema,
          /** Any JSON, at most 256 KiB; null when left out. */
          data: z.unknown().optional(),
          id: eventIdempotencyIdSchema.optional(),
        })
        .strict(),
    )
    .output(sendEventOutputSchema),
  list: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({ summary: "List a project's events, newest first (timestamp cursor)", tags: ["events"] })
    .input(
      z
        .object({
          projectId: projectIdSchema,
          name: eventNameSchema.optional(),
          ...timestampPageInput({ maxPageSize: sentEventsPageLimit }),
        })
        .strict(),
    )
    .output(timestampPageOf(sentEventSchema)),
};
