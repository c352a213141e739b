import type { Plan, QuotaRefusal } from "@weft/contract";
import { eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { projects, workspaces } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import { createExpiringMap } from "../shared/expiring-map.ts";
import { monthOf } from "./billing-month.ts";
import { exhaustedMonthlyQuota, type MonthUsage, quotaMessage, readMonthUsage } from "./month-usage.ts";
import { hasMonthlyQuota, type PlanCatalogue, planOf } from "./plans.ts";

/** How long a process trusts its cached counters before reading them again. */
export const quotaCacheMs = 1000;

/** An execution that may not start: the quota, and the message every surface shows. */
export interface QuotaExceeded {
  quota: QuotaRefusal;
  message: string;
}

/**
 * Decides on the hot path whether a project may start an execution, from counters this process
 * caches for a second: one read per workspace per second however many triggers arrive, and none at
 * all for a plan without monthly quotas. The process adds the executions it admits to its cached
 * count at once, so alone it never overshoots; what it cannot see is what other processes admitted
 * since its last read, so a quota may overshoot by at most what the other processes admit in one
 * `quotaCacheMs` (docs/decisions/0073-metering-and-quotas.md). The read counts the usage deltas no worker has rolled up yet
 * and the executions not ended yet, so how often the workers roll up does not widen that bound.
 * Step time and bytes are read as committed by ended executions.
 */
export interface QuotaGate {
  /** Undefined when the project may start `count` executions now (they are then counted). */
  admit(projectId: string, count?: number): Promise<QuotaExceeded | undefined>;
}

interface ProjectEntry {
  workspaceId: string;
  plan: Plan;
}

interface WorkspaceEntry {
  monthDay: string;
  used: MonthUsage;
}

export function createQuotaGate(deps: { db: Database; clock: Clock; catalogue: PlanCatalogue }): QuotaGate {
  const byProject = createExpiringMap<string, ProjectEntry>(10_000);
  const byWorkspace = createExpiringMap<string, WorkspaceEntry>(10_000);

  async function projectEntry(projectId: string, nowMs: number): Promise<ProjectEntry | undefined> {
    const cached = byProject.get(projectId, nowMs);
    if (cached !== undefined) return cached;
    const [row] = await deps.db
      .select({ workspaceId: projects.workspaceId, plan: workspaces.plan })
      .from(projects)
      .innerJoin(workspaces, eq(workspaces.id, projects.workspaceId))
      .where(eq(projects.id, projectId));
    if (row === undefined) return undefined;
    const entry = { workspaceId: row.workspaceId, plan: planOf(deps.catalogue, row.plan) };
    byProject.set(projectId, entry, nowMs + quotaCacheMs);
    return entry;
  }

  async function workspaceEntry(workspaceId: string, now: Date): Promise<WorkspaceEntry> {
    const monthDay = monthOf(now).day;
    const cached = byWorkspace.get(workspaceId, now.getTime());
    if (cached !== undefined && cached.monthDay === monthDay) return cached;
    const entry = { monthDay, used: await readMonthUsage(deps.db, workspaceId, now) };
    byWorkspace.set(workspaceId, entry, now.getTime() + quotaCacheMs);
    return entry;
  }

  return {
    async admit(projectId, count = 1) {
      const now = deps.clock.now();
      const project = await projectEntry(projectId, now.getTime());
      // An unknown project is refused later, by whoever looks it up for its own purpose.
      if (project === undefined || !hasMonthlyQuota(project.plan)) return undefined;
      const workspace = await workspaceEntry(project.workspaceId, now);
      const exhausted = exhaustedMonthlyQuota(project.plan, workspace.used, now);
      if (exhausted !== undefined) return { quota: exhausted, message: quotaMessage(project.plan, exhausted) };
      workspace.used.executions += count;
      return undefined;
    },
  };
}
