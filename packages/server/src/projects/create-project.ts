import { recordAuditEvent } from "../audit/record-audit-event.ts";
import type { PlanCatalogue } from "../billing/plans.ts";
import { projectQuotaExceeded } from "../billing/project-quota.ts";
import type { Database } from "../db/database.ts";
import { projects } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { nameTakenMessage, type ProjectActor, type ProjectRecord } from "./project-record.ts";

/**
 * Creates a project in a workspace; names are unique per workspace. A workspace whose plan caps its
 * projects gets no project beyond the cap (quota_exceeded); concurrent creations in one workspace
 * take turns on its row, so two cannot both take the last place.
 */
export async function createProject(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator; config: { billing: PlanCatalogue } },
  input: { workspaceId: string; name: string; actor: ProjectActor },
): Promise<ServiceResult<ProjectRecord>> {
  return db.transaction(async (tx) => {
    const now = deps.clock.now();
    const full = await projectQuotaExceeded(tx, deps.config.billing, input.workspaceId);
    if (full !== undefined) return fail.quotaExceeded(full);
    const [project] = await tx
      .insert(projects)
      .values({
        id: deps.ids("project"),
        workspaceId: input.workspaceId,
        name: input.name,
        createdByAccountId: input.actor.accountId,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing({ target: [projects.workspaceId, projects.name] })
      .returning();
    if (project === undefined) return fail.conflict(nameTakenMessage(input.name));
    await recordAuditEvent(tx, deps, {
      action: "project.created",
      targetType: "project",
      targetId: project.id,
      workspaceId: project.workspaceId,
      actor: input.actor,
      data: { name: project.name },
    });
    return ok(project);
  });
}
