import * as z from "zod";
import { definitionNameSchema } from "./manifest.ts";
import { pageOf } from "./pagination.ts";
import { procedure } from "./procedure.ts";
import { projectIdSchema, projectPageInput } from "./projects.ts";

/** Largest page of `schedules.list`. */
export const schedulesPageLimit = 200;

export const scheduleSchema = z.object({
  name: z.string(),
  workflow: z.string(),
  cron: z.string(),
  timezone: z.string(),
  /** Whether ticks start executions now: the config's `enabled`, unless paused through the API. */
  enabled: z.boolean(),
  /** Paused through `schedules.pause`: stays paused across deploys until `schedules.resume`. */
  pausedThroughApi: z.boolean(),
  /** The next tick; null while the schedule is disabled, or when its expression never matches again. */
  nextRunAt: z.iso.datetime().nullable(),
  /** The tick of the latest execution the schedule started. */
  lastRunAt: z.iso.datetime().nullable(),
  lastExecutionId: z.string().nullable(),
  /** The latest tick that started nothing because the workspace's plan had no room left. */
  lastSkippedAt: z.iso.datetime().nullable(),
  /** Why that tick started nothing: the quota, its use and when it resets. */
  lastSkipReason: z.string().nullable(),
});
export type Schedule = z.infer<typeof scheduleSchema>;

const scheduleTarget = z.object({ projectId: projectIdSchema, name: definitionNameSchema }).strict();

/** The `schedules` namespace: the cron schedules of a project's active deployment. */
export const schedulesContract = {
  list: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({ summary: "List a project's schedules, by name", tags: ["schedules"] })
    .input(projectPageInput({ maxPageSize: schedulesPageLimit }))
    .output(pageOf(scheduleSchema)),
  pause: procedure({ scope: "projects:write", mutates: true, mcp: { tool: true } })
    .route({ summary: "Pause a schedule until it is resumed, across deploys", tags: ["schedules"] })
    .input(scheduleTarget)
    .output(scheduleSchema),
  resume: procedure({ scope: "projects:write", mutates: true, mcp: { tool: true } })
    .route({ summary: "Resume a schedule (until a deploy re-applies its config)", tags: ["schedules"] })
    .input(scheduleTarget)
    .output(scheduleSchema),
  runNow: procedure({ scope: "projects:write", mutates: true, mcp: { tool: true } })
    .route({
      summary: "Start a schedule's workflow now, as a tick would, paused or not",
      description:
        "The execution gets the schedule's input with `scheduledFor` set to now, and counts against the plan's quotas like any start. The schedule's next tick is unchanged.",
      tags: ["schedules"],
    })
    .input(scheduleTarget)
    .output(z.object({ executionId: z.string(), schedule: scheduleSchema })),
};
