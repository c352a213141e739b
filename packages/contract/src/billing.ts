import * as z from "zod";
import { instantInputSchema } from "./instants.ts";
import { timestampPageInput, timestampPageOf } from "./pagination.ts";
import { procedure } from "./procedure.ts";
import { workspaceIdSchema } from "./projects.ts";

/** Largest page of `billing.listStatements`. */
export const statementsPageLimit = 100;
/** Longest range of `billing.getUsage`. */
export const maxUsageRangeDays = 400;

export const planNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "A plan name is 1 to 64 letters, digits, '.', '_' or '-'.");

const quotaLimit = z.int().min(0).max(Number.MAX_SAFE_INTEGER);

/**
 * A plan as the operator writes it in WEFT_PLANS; a quota left out is unlimited, but for
 * `workspaces` and `schedules`, which the platform caps by default (see the README's plans).
 */
export const planSchema = z
  .object({
    name: planNameSchema,
    executionsPerMonth: quotaLimit.optional(),
    stepSecondsPerMonth: quotaLimit.optional(),
    projects: quotaLimit.optional(),
    storageBytes: quotaLimit.optional(),
    /** Workspaces an account on this plan (its personal workspace's) may pay for, the personal one included. */
    workspaces: quotaLimit.optional(),
    /** Schedules the active deployments of a workspace's projects may hold together; 500 when left out. */
    schedules: quotaLimit.optional(),
  })
  .strict();
export type Plan = z.infer<typeof planSchema>;

export const triggerKindSchema = z.enum(["api", "form", "webhook", "rerun", "schedule", "event", "workflow"]);

/** The meters of a period (or of one day, or one project). */
export const usageFiguresSchema = z.object({
  executions: z.number(),
  executionsByTrigger: z.partialRecord(triggerKindSchema, z.number()),
  /** Wall time of steps, each rounded up to 10 ms. */
  stepSeconds: z.number(),
  /** Execution input, output and step results written, and the data of events sent. */
  bytes: z.number(),
  /** Events sent (`events.send`, `ctx.sendEvent`, webhooks that send one). */
  events: z.number(),
});
export type UsageFigures = z.infer<typeof usageFiguresSchema>;

export const usageSchema = z.object({
  workspaceId: z.string(),
  from: z.string(),
  to: z.string(),
  groupBy: z.enum(["day", "project"]),
  totals: usageFiguresSchema.extend({ activeProjects: z.number() }),
  /** One per UTC day with usage (`day`), or per project with usage (`projectId`). */
  rows: z.array(usageFiguresSchema.extend({ day: z.string().optional(), projectId: z.string().optional() })),
});
export type Usage = z.infer<typeof usageSchema>;

export const planInForceSchema = z.object({
  workspaceId: z.string(),
  plan: planSchema,
  /** The current month's use of each monthly quota, and the projects there are now. */
  used: z.object({ executions: z.number(), stepSeconds: z.number(), bytes: z.number(), projects: z.number() }),
  periodStart: z.iso.datetime(),
  resetsAt: z.iso.datetime(),
});
export type PlanInForce = z.infer<typeof planInForceSchema>;

export const statementSchema = z.object({
  workspaceId: z.string(),
  periodStart: z.iso.datetime(),
  periodEnd: z.iso.datetime(),
  plan: planSchema,
  totals: z.object({
    executions: z.number(),
    stepSeconds: z.number(),
    bytes: z.number(),
    activeProjects: z.number(),
  }),
  projects: z.array(
    z.object({ projectId: z.string(), executions: z.number(), stepSeconds: z.number(), bytes: z.number() }),
  ),
  closedAt: z.iso.datetime(),
});
export type Statement = z.infer<typeof statementSchema>;

const dayMs = 24 * 60 * 60 * 1000;

/** `from` to `to`, in order and at most `maxDays` apart: checked in the input, so a bad range is BAD_REQUEST. */
export function checkRange(maxDays: number) {
  return (value: { from: string; to: string }, ctx: z.RefinementCtx): void => {
    const from = Date.parse(value.from);
    const to = Date.parse(value.to);
    if (from > to) ctx.addIssue({ code: "custom", path: ["from"], message: "`from` is after `to`." });
    else if (to - from > maxDays * dayMs) {
      ctx.addIssue({ code: "custom", path: ["to"], message: `The range is over ${maxDays} days.` });
    }
  };
}

/** The `billing` namespace: a workspace's plan, its metered usage and its monthly statements (owner, admin). */
export const billingContract = {
  getPlan: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({ summary: "The workspace's plan, its quotas and this month's use (owner, admin)", tags: ["billing"] })
    .input(z.object({ workspaceId: workspaceIdSchema }).strict())
    .output(planInForceSchema),
  getUsage: procedure({ scope: "projects:read", mutates: false, mcp: { tool: true } })
    .route({
      summary: "Metered usage between two instants, by UTC day or by project (owner, admin)",
      tags: ["billing"],
    })
    .input(
      z
        .object({
          workspaceId: workspaceIdSchema,
          from: instantInputSchema,
          to: instantInputSchema,
          groupBy: z.enum(["day", "project"]),
        })
        .strict()
        .superRefine(checkRange(maxUsageRangeDays)),
    )
    .output(usageSchema),
  listStatements: procedure({
    scope: "projects:read",
    mutates: false,
    mcp: {
      tool: false,
      reason: "monthly statements are an operator's and a workspace owner's bookkeeping, read in Studio",
    },
  })
    .route({ summary: "Closed monthly statements, newest first (owner, admin)", tags: ["billing"] })
    .input(
      z
        .object({ workspaceId: workspaceIdSchema, ...timestampPageInput({ maxPageSize: statementsPageLimit }) })
        .strict(),
    )
    .output(timestampPageOf(statementSchema)),
};
