import * as z from "zod";
import { agentSchema } from "./agents.ts";
import { checkRange, maxUsageRangeDays, planInForceSchema } from "./billing.ts";
import { instantInputSchema } from "./instants.ts";
import { procedure } from "./procedure.ts";
import { projectIdSchema, workspaceIdSchema } from "./projects.ts";
import { executionStatusSchema, waitTokenSchema } from "./workflows.ts";

/** Most buckets one timeline answers: a day of minutes, 62 days of hours, 400 days of days. */
export const timelineRangeDays = { minute: 1, hour: 62, day: maxUsageRangeDays } as const;

const countsByStatus = z.partialRecord(executionStatusSchema, z.number());

export const studioOverviewSchema = z.object({
  workspaceId: z.string(),
  projects: z.array(
    z.object({
      id: z.string(),
      name: z.string(),
      activeDeployment: z.object({ id: z.string(), number: z.number(), createdAt: z.iso.datetime() }).nullable(),
    }),
  ),
  /** Executions created in the last 24 hours, by their status now. */
  executionsLast24h: countsByStatus,
  /** The 10 most recent failed executions. */
  recentFailures: z.array(
    z.object({
      executionId: z.string(),
      projectId: z.string(),
      workflow: z.string(),
      error: z.object({ name: z.string(), message: z.string() }).nullable(),
      finishedAt: z.iso.datetime(),
    }),
  ),
  /** Agents used in the last 24 hours: every member's for owners and admins, the caller's own otherwise. */
  activeAgents: z.array(agentSchema),
  /** Usage against the plan, for owners and admins; null for other roles. */
  usage: planInForceSchema.nullable(),
});
export type StudioOverview = z.infer<typeof studioOverviewSchema>;

export const executionTimelineSchema = z.object({
  bucket: z.enum(["minute", "hour", "day"]),
  /** Buckets with at least one execution, oldest first; `start` is the bucket's first instant (UTC). */
  buckets: z.array(z.object({ start: z.iso.datetime(), counts: countsByStatus })),
});
export type ExecutionTimeline = z.infer<typeof executionTimelineSchema>;

/** Most waiting tokens one Approvals view lists, oldest first; `more` tells that others wait beyond them. */
export const approvalsLimit = 200;

export const approvalsSchema = z.object({
  approvals: z.array(
    waitTokenSchema.extend({
      executionId: z.string(),
      projectId: z.string(),
      projectName: z.string(),
      workflow: z.string(),
    }),
  ),
  more: z.boolean(),
});
export type Approvals = z.infer<typeof approvalsSchema>;

/** The `studio` namespace: one call per dashboard view. */
export const studioContract = {
  overview: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({
      summary: "A workspace at a glance: projects, the last 24 hours, failures, agents, usage",
      tags: ["studio"],
    })
    .input(z.object({ workspaceId: workspaceIdSchema }).strict())
    .output(studioOverviewSchema),
  approvals: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({
      summary: "The wait tokens waiting for an answer in a workspace, oldest first, with what each asks",
      tags: ["studio"],
    })
    .input(z.object({ workspaceId: workspaceIdSchema }).strict())
    .output(approvalsSchema),
  executionTimeline: procedure({
    scope: "projects:read",
    mutates: false,
    mcp: {
      tool: false,
      reason: "a chart's series: studio.overview and workflows.listExecutions answer an agent's questions",
    },
  })
    .route({ summary: "Executions created per minute, hour or day, by status", tags: ["studio"] })
    .input(
      z
        .object({
          projectId: projectIdSchema.optional(),
          workspaceId: workspaceIdSchema.optional(),
          from: instantInputSchema,
          to: instantInputSchema,
          bucket: z.enum(["minute", "hour", "day"]),
        })
        .strict()
        .superRefine((value, ctx) => {
          if ((value.projectId === undefined) === (value.workspaceId === undefined)) {
            ctx.addIssue({ code: "custom", path: ["projectId"], message: "Give either projectId or workspaceId." });
          }
          checkRange(timelineRangeDays[value.bucket])(value, ctx);
        }),
    )
    .output(executionTimelineSchema),
};
