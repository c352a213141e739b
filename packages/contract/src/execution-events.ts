import * as z from "zod";
import { procedure } from "./procedure.ts";
import { projectIdSchema } from "./projects.ts";

/** Largest page of `workflows.listEvents`. */
export const eventsPageLimit = 500;
/** Page of `workflows.listEvents` when `limit` is not given. */
export const eventsDefaultPageSize = 100;

const executionIdPattern = /^exe_[0-9a-z]{26}$/;

export const executionEventKindSchema = z.enum([
  "queued",
  "attempt.started",
  "step.started",
  "log",
  "step.ended",
  "sleep",
  "attempt.ended",
  "execution.ended",
]);
export type ExecutionEventKind = z.infer<typeof executionEventKindSchema>;

/**
 * One event of an execution: what happened (`kind`, `message`: one line a person reads), when it
 * happened (`at`), and its place in the stream (`id`, the cursor to resume after it).
 */
export const executionEventSchema = z.object({
  id: z.string(),
  executionId: z.string(),
  workflow: z.string(),
  kind: executionEventKindSchema,
  at: z.iso.datetime(),
  attempt: z.int().nullable(),
  step: z.string().nullable(),
  /** `ok`/`error` for an ended step or attempt; the final status for `execution.ended`; a log line's level. */
  status: z.string().nullable(),
  message: z.string(),
  durationMs: z.number().nullable(),
  fields: z.record(z.string(), z.unknown()).optional(),
});
export type ExecutionEvent = z.infer<typeof executionEventSchema>;

/**
 * `workflows.listEvents`: the events of one execution or of a whole project, in the order they were
 * recorded, after an optional cursor, in the time-ordered log shape `{ data, nextCursor }`. A stream
 * has no last page, only a present: `nextCursor` is always where to resume (after the page's last
 * event, or the cursor asked with when none came), and a page shorter than `limit` has caught up.
 */
export const listEventsProcedure = procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
  .route({ summary: "List the events (logs, steps, attempts) of an execution or a project", tags: ["workflows"] })
  .input(
    z
      .object({
        executionId: z.string().regex(executionIdPattern, "Expected an execution id (exe_…).").optional(),
        projectId: projectIdSchema.optional(),
        /** `nextCursor` of the previous page, or an event's `id`. */
        cursor: z.string().min(1).max(500).optional(),
        limit: z.int().min(1).max(eventsPageLimit).optional(),
      })
      .strict()
      .refine((input) => (input.executionId === undefined) !== (input.projectId === undefined), {
        message: "Give exactly one of executionId and projectId.",
        path: ["executionId"],
      }),
  )
  .output(z.object({ data: z.array(executionEventSchema), nextCursor: z.string() }));
