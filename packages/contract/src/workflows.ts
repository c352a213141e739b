import * as z from "zod";
import { listEventsProcedure } from "./execution-events.ts";
import { executionStatuses } from "./execution-status.ts";
import { instantInputSchema } from "./instants.ts";
import { definitionNameSchema, workflowManifestSchema } from "./manifest.ts";
import { cappedCountPageOf, connectionPageInput, pageOf } from "./pagination.ts";
import { procedure } from "./procedure.ts";
import { projectIdSchema, projectPageInput } from "./projects.ts";
import { maxRunManyInputs, maxRunTags, runDurationSchema, runTagSchema, runTagsSchema } from "./run-options.ts";

/** Largest page of `workflows.listExecutions`. */
export const executionsPageLimit = 100;
/** Largest page of `workflows.list`. */
export const workflowsPageLimit = 200;
/** How far `workflows.listExecutions` counts its matches: a history is not counted whole for each page. */
export const executionsCountCap = 10_000;

export const executionIdSchema = z.string().regex(/^exe_[0-9a-z]{26}$/, "Expected an execution id (exe_…).");
export const executionStatusSchema = z.enum(executionStatuses);

export const workflowSchema = workflowManifestSchema.extend({
  deploymentId: z.string(),
  deploymentNumber: z.int(),
});

const logEntrySchema = z.object({
  at: z.string(),
  level: z.enum(["debug", "info", "warn", "error"]),
  message: z.string(),
  fields: z.record(z.string(), z.unknown()).optional(),
});

export const executionSummarySchema = z.object({
  id: z.string(),
  projectId: z.string(),
  deploymentId: z.string(),
  workflow: z.string(),
  status: executionStatusSchema,
  attempt: z.int(),
  trigger: z.object({ kind: z.string(), name: z.string().nullable() }),
  createdAt: z.iso.datetime(),
  startedAt: z.iso.datetime().nullable(),
  finishedAt: z.iso.datetime().nullable(),
  tags: z.array(z.string()),
});

/**
 * A wait token as a reader sees it (its id, a secret, is never shown): what it asks (`TokenOptions`),
 * who may answer it (`anyone` holding its URL, or signed-in `members`), and who did.
 */
export const waitTokenSchema = z.object({
  name: z.string(),
  status: z.enum(["pending", "completed", "timed_out", "closed"]),
  createdAt: z.iso.datetime(),
  expiresAt: z.iso.datetime(),
  finishedAt: z.iso.datetime().nullable(),
  title: z.string().nullable(),
  description: z.string().nullable(),
  fields: z.array(z.object({ label: z.string(), value: z.string() })),
  approvers: z.enum(["anyone", "members"]),
  /** The event it waits for (`ctx.waitForEvent`), which only a send of that event completes; null for a token a person or a call answers. */
  event: z.string().nullable(),
  /** The signed-in account that completed it; null when completed through its URL, or not completed. */
  completedBy: z.object({ accountId: z.string(), email: z.string().nullable() }).nullable(),
});
export type WaitTokenView = z.infer<typeof waitTokenSchema>;

export const executionSchema = executionSummarySchema.extend({
  input: z.unknown(),
  output: z.unknown(),
  error: z
    .object({
      name: z.string(),
      message: z.string(),
      stack: z.string().optional(),
      /** Where in the project's own source it was thrown (`workflows/pay.ts:12:7`); null when no frame is the project's. */
      location: z.string().nullable(),
    })
    .nullable(),
  maxAttempts: z.int(),
  runAt: z.iso.datetime(),
  cancelRequested: z.boolean(),
  rerunOf: z.string().nullable(),
  /** The execution that started it (`ctx.invoke`, `ctx.start`); null for any other trigger. */
  parentExecutionId: z.string().nullable(),
  /**
   * How many starts by executions lead to it: 0 for a run from the API, a webhook, a form, a
   * schedule or an event sent from outside; its starter's + 1 for a child or an execution a
   * workflow's event started. A start past the platform's maximum depth is refused.
   */
  depth: z.int().min(0),
  /** The executions it started, oldest first: at most the first 100. */
  children: z.array(z.object({ id: z.string(), workflow: z.string(), status: executionStatusSchema })),
  traceId: z.string(),
  logs: z.array(logEntrySchema),
  steps: z.array(
    z.object({
      name: z.string(),
      kind: z.enum(["step", "sleep"]),
      attempt: z.int(),
      startedAt: z.iso.datetime(),
      finishedAt: z.iso.datetime(),
      durationMs: z.number(),
      output: z.unknown(),
      wakeAt: z.iso.datetime().nullable(),
      logs: z.array(logEntrySchema),
    }),
  ),
  /**
   * Steps that threw, oldest first: one entry for each throw, with the attempt it ended. A step
   * that threw stores no result, so the next attempt runs it again.
   */
  failedSteps: z.array(
    z.object({
      name: z.string(),
      attempt: z.int(),
      startedAt: z.iso.datetime(),
      finishedAt: z.iso.datetime(),
      durationMs: z.number(),
      error: z.object({ name: z.string(), message: z.string() }),
    }),
  ),
  /** Wait tokens of the execution, oldest first; their ids are secrets and are not shown. */
  tokens: z.array(waitTokenSchema),
  attempts: z.array(
    z.object({
      number: z.int(),
      resumed: z.boolean(),
      startedAt: z.iso.datetime(),
      endedAt: z.iso.datetime().nullable(),
      status: z.string(),
      error: z.string().nullable(),
    }),
  ),
});
export type Execution = z.infer<typeof executionSchema>;

const workflowRef = z.object({ projectId: projectIdSchema, workflow: definitionNameSchema }).strict();
const executionRef = z.object({ executionId: executionIdSchema }).strict();

/** A wait token id, as `ctx.createToken` returns it (the last segment of its URL). */
export const waitTokenIdSchema = z.string().regex(/^wtk_[A-Za-z0-9_-]{43}$/, "Expected a wait token id (wtk_…).");

/** The `workflows` namespace: the workflows of a project's active deployment and their executions. */
export const workflowsContract = {
  list: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({ summary: "List the workflows of the project's active deployment", tags: ["workflows"] })
    .input(projectPageInput({ maxPageSize: workflowsPageLimit }))
    .output(pageOf(workflowSchema)),
  get: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({ summary: "Read one workflow of the active deployment", tags: ["workflows"] })
    .input(workflowRef)
    .output(workflowSchema),
  run: procedure({ scope: "projects:write", mutates: true, mcp: { tool: true } })
    .route({ summary: "Start an execution (input validated against the workflow's schema)", tags: ["workflows"] })
    .input(
      workflowRef.extend({
        input: z.unknown(),
        /** The same key with the same input within 24 hours names the same execution; with another input, CONFLICT. */
        idempotencyKey: z.string().min(1).max(200).optional(),
        /** Queued to start this long from now (milliseconds, or "90s", "5m", "1h", "2d"): at most a year. */
        delay: runDurationSchema.optional(),
        /** Not started within this long after it was due, it ends `expired`: from 1 second to 30 days. */
        ttl: runDurationSchema.optional(),
        /** At most 10 labels of up to 64 characters, to list executions by. */
        tags: runTagsSchema.optional(),
      }),
    )
    .output(
      z.object({
        executionId: z.string(),
        /**
         * How the workflow's flow control took the start: `debounced`, folded into the queued
         * execution `executionId` names; `skipped`, over its `rateLimit` (the execution is recorded
         * `cancelled`, with a `RateLimitedError`, and never runs). Absent when it was queued as asked.
         */
        flowControl: z.enum(["debounced", "skipped"]).optional(),
      }),
    ),
  runMany: procedure({ scope: "projects:write", mutates: true, mcp: { tool: true } })
    .route({
      summary: "Start up to 1,000 executions of a workflow in one transaction, one per input",
      description:
        "Every input is validated against the workflow's schema first: one refused input (named `inputs.<index>`) starts none. The executions share `delay`, `ttl` and `tags`.",
      tags: ["workflows"],
    })
    .input(
      workflowRef.extend({
        inputs: z.array(z.unknown()).min(1).max(maxRunManyInputs),
        delay: runDurationSchema.optional(),
        ttl: runDurationSchema.optional(),
        tags: runTagsSchema.optional(),
      }),
    )
    .output(z.object({ executionIds: z.array(z.string()) })),
  listExecutions: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({ summary: "List a project's executions, oldest first", tags: ["workflows"] })
    .input(
      z
        .object({
          projectId: projectIdSchema,
          workflow: definitionNameSchema.optional(),
          /** Only the executions the schedule of this name started (its ticks and its runs now). */
          schedule: definitionNameSchema.optional(),
          /** Only the executions holding every one of these tags. */
          tags: z.array(runTagSchema).min(1).max(maxRunTags).optional(),
          status: z.union([executionStatusSchema, z.array(executionStatusSchema).min(1)]).optional(),
          createdFrom: instantInputSchema.optional(),
          createdTo: instantInputSchema.optional(),
          ...connectionPageInput({ maxPageSize: executionsPageLimit }),
        })
        .strict(),
    )
    .output(cappedCountPageOf(executionSummarySchema, executionsCountCap)),
  getExecution: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({ summary: "Read an execution with its steps, attempts and logs", tags: ["workflows"] })
    .input(executionRef)
    .output(executionSchema),
  cancelExecution: procedure({ scope: "projects:write", mutates: true, mcp: { tool: true } })
    .route({ summary: "Cancel an execution (a running one stops at its next step)", tags: ["workflows"] })
    .input(executionRef)
    .output(z.object({ executionId: z.string(), status: executionStatusSchema })),
  completeToken: procedure({ scope: "projects:write", mutates: true, mcp: { tool: true } })
    .route({ summary: "Complete a wait token: its waiting execution resumes with `data`", tags: ["workflows"] })
    .input(z.object({ tokenId: waitTokenIdSchema, data: z.unknown() }).strict())
    .output(z.object({ executionId: z.string(), status: z.literal("completed") })),
  answerToken: procedure({
    scope: "projects:write",
    mutates: true,
    mcp: { tool: false, reason: "a person's decision, asked of a member in Studio; an agent uses completeToken" },
  })
    .route({
      summary: "Approve or reject a wait token of an execution, as a signed-in member; the answer is recorded",
      tags: ["workflows"],
    })
    .input(executionRef.extend({ name: z.string().min(1).max(200), decision: z.enum(["approve", "reject"]) }).strict())
    .output(z.object({ executionId: z.string(), status: z.literal("completed") })),
  rerunExecution: procedure({ scope: "projects:write", mutates: true, mcp: { tool: true } })
    .route({ summary: "Start a new execution with the same input", tags: ["workflows"] })
    .input(executionRef)
    .output(z.object({ executionId: z.string() })),
  listEvents: listEventsProcedure,
};
