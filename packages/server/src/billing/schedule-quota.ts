import type { Plan } from "@weft/contract";
import { and, count, eq, ne } from "drizzle-orm";
import type { Transaction } from "../db/database.ts";
import { projects, schedules, workspaces } from "../db/schema/index.ts";
import { fail, type ServiceResult } from "../shared/service-result.ts";
import { type PlanCatalogue, planOf, unlimitedPlan } from "./plans.ts";

/**
 * The schedules a workspace's projects may hold together when its plan says nothing: more than a
 * person keeps, and few enough that one workspace's minute cannot be made arbitrarily large.
 */
export const defaultSchedulesPerWorkspace = 500;

/** The schedules the active deployments of a workspace on `plan` may hold together. */
export function schedulesAllowed(plan: Plan): number {
  return plan.schedules ?? defaultSchedulesPerWorkspace;
}

/**
 * Refuses (400, naming the limit) making active in `projectId` a deployment with `scheduleCount`
 * schedules when, with those of the workspace's other projects, they would pass the plan's
 * `schedules`. Counted per workspace because the plan is the workspace's, as its other quotas are:
 * per project, the limit would be multiplied by projects, which most plans leave unlimited. Locks the
 * workspace's row for the rest of the caller's transaction, so that concurrent deploys of its
 * projects count one after the other. `catalogue` absent: the unlimited plan, which still caps.
 */
export async function scheduleLimitFailure(
  tx: Transaction,
  catalogue: PlanCatalogue | undefined,
  request: { projectId: string; scheduleCount: number },
): Promise<ServiceResult<never> | undefined> {
  if (request.scheduleCount === 0) return undefined;
  const [workspace] = await tx
    .select({ id: workspaces.id, plan: workspaces.plan })
    .from(projects)
    .innerJoin(workspaces, eq(workspaces.id, projects.workspaceId))
    .where(eq(projects.id, request.projectId))
    .for("update", { of: workspaces });
  if (workspace === undefined) return undefined;
  const plan = catalogue === undefined ? unlimitedPlan : planOf(catalogue, workspace.plan);
  const limit = schedulesAllowed(plan);
  if (request.scheduleCount <= limit) {
    const [others] = await tx
      .select({ n: count() })
      .from(schedules)
      .innerJoin(projects, eq(projects.id, schedules.projectId))
      .where(and(eq(projects.workspaceId, workspace.id), ne(schedules.projectId, request.projectId)));
    const elsewhere = others?.n ?? 0;
    if (elsewhere + request.scheduleCount <= limit) return undefined;
    return refusal(
      plan,
      limit,
      workspace.id,
      `this deployment has ${request.scheduleCount} and the workspace's other projects ${elsewhere}`,
    );
  }
  return refusal(plan, limit, workspace.id, `this deployment alone has ${request.scheduleCount}`);
}

function refusal(plan: Plan, limit: number, workspaceId: string, counted: string): ServiceResult<never> {
  return fail.invalid("the deployment has more schedules than the workspace's plan allows", [
    {
      path: "schedules",
      message: `the workspace's plan "${plan.name}" allows ${limit} schedules across the active deployments of its projects (quota schedules), and ${counted}: remove schedules (from this project or another), or the operator raises the quota with \`weft server set-plan ${workspaceId} <plan>\``,
    },
  ]);
}
