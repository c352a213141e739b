import type { Plan } from "@weft/contract";
import { eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { projects, workspaces } from "../db/schema/index.ts";
import type { StepQuota } from "../engine/attempts/step-quota.ts";
import type { Clock } from "../shared/clock.ts";
import { createExpiringMap } from "../shared/expiring-map.ts";
import { monthOf } from "./billing-month.ts";
import { billedStepMsOf } from "./metering.ts";
import { quotaMessage } from "./month-usage.ts";
import { type PlanCatalogue, planOf } from "./plans.ts";
import { quotaCacheMs } from "./quota-gate.ts";
import { readQuotaUsage } from "./quota-usage.ts";

interface ProjectPlan {
  workspaceId: string;
  plan: Plan;
}

interface WorkspaceSteps {
  monthDay: string;
  stepSeconds: number;
}

/**
 * Whether an execution may go on running steps under its workspace's `stepSecondsPerMonth`, asked
 * by a worker before an attempt starts and after each step it records. It answers from what the
 * worker read for the workspace within the last `quotaCacheMs` (the month's meters and the stored
 * steps of the executions not ended yet, `readQuotaUsage`) plus the caller's own steps not stored
 * yet: a map lookup per step, and per worker at most one read of the project's plan per project
 * and one usage read per workspace each `quotaCacheMs`, none of it for a plan without the quota.
 * What it cannot see are the steps other attempts running now have not stored yet: each of those
 * stops at its own next step, which bounds how far a month goes over (README, "Usage, plans and
 * quotas").
 */
export function createStepQuota(deps: { db: Database; clock: Clock; catalogue: PlanCatalogue }): StepQuota {
  const byProject = createExpiringMap<string, Promise<ProjectPlan | undefined>>(10_000);
  const byWorkspace = createExpiringMap<string, Promise<WorkspaceSteps>>(10_000);

  /** Cached as promises, so that the steps of many attempts arriving together share one read. */
  function projectPlan(projectId: string, nowMs: number): Promise<ProjectPlan | undefined> {
    const cached = byProject.get(projectId, nowMs);
    if (cached !== undefined) return cached;
    const read = deps.db
      .select({ workspaceId: projects.workspaceId, plan: workspaces.plan })
      .from(projects)
      .innerJoin(workspaces, eq(workspaces.id, projects.workspaceId))
      .where(eq(projects.id, projectId))
      .then(([row]) =>
        row === undefined ? undefined : { workspaceId: row.workspaceId, plan: planOf(deps.catalogue, row.plan) },
      );
    byProject.set(projectId, read, nowMs + quotaCacheMs);
    read.catch(() => byProject.delete(projectId));
    return read;
  }

  async function workspaceSteps(workspaceId: string, now: Date): Promise<WorkspaceSteps> {
    const monthDay = monthOf(now).day;
    const cached = byWorkspace.get(workspaceId, now.getTime());
    if (cached !== undefined) {
      const entry = await cached;
      if (entry.monthDay === monthDay) return entry;
    }
    const read = readQuotaUsage(deps.db, workspaceId, now).then((used) => ({
      monthDay,
      stepSeconds: used.stepSeconds,
    }));
    byWorkspace.set(workspaceId, read, now.getTime() + quotaCacheMs);
    read.catch(() => byWorkspace.delete(workspaceId));
    return read;
  }

  return {
    async exceeded(projectId, unstoredSteps) {
      const now = deps.clock.now();
      const project = await projectPlan(projectId, now.getTime());
      const limit = project?.plan.stepSecondsPerMonth;
      if (project === undefined || limit === undefined) return undefined;
      const steps = await workspaceSteps(project.workspaceId, now);
      const used = (Math.round(steps.stepSeconds * 1000) + billedStepMsOf(unstoredSteps)) / 1000;
      if (used < limit) return undefined;
      const quota = { name: "stepSecondsPerMonth" as const, limit, used, resetsAt: monthOf(now).end.toISOString() };
      return { quota, message: quotaMessage(project.plan, quota) };
    },
  };
}
