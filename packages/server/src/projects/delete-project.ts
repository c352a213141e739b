import { eq } from "drizzle-orm";
import { recordAuditEvent } from "../audit/record-audit-event.ts";
import { meterUnfinishedOfProject } from "../billing/metering.ts";
import { rollUpDeletedProject } from "../billing/usage-roll-up.ts";
import type { Database } from "../db/database.ts";
import { retryOnDeadlock } from "../db/deadlock-retry.ts";
import { projects, spans } from "../db/schema/index.ts";
import type { AnnouncesActiveDeploymentChanges } from "../deployments/active-deployment-changes.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { forgetExecutionCounts } from "../studio/execution-count-roll-up.ts";
import type { ProjectActor } from "./project-record.ts";

/** Deletes a project (its dependent rows go with it); not_found when it no longer exists. */
export async function deleteProject(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator } & AnnouncesActiveDeploymentChanges,
  input: { projectId: string; actor: ProjectActor },
): Promise<ServiceResult<{ id: string }>> {
  // The project's row is locked before its executions' (to count the unfinished ones, then by the
  // cascade), while a statement writing a row that names an execution and its project (with
  // foreign keys to both) would lock the execution's row before the project's.
  const removed = await retryOnDeadlock(() =>
    db.transaction(async (tx) => {
      const [locked] = await tx
        .select({ id: projects.id })
        .from(projects)
        .where(eq(projects.id, input.projectId))
        .for("update");
      if (locked === undefined) return false;
      await meterUnfinishedOfProject(tx, locked.id);
      const [deleted] = await tx.delete(projects).where(eq(projects.id, locked.id)).returning();
      if (deleted === undefined) return false;
      // Spans have no foreign key to cascade by. Each is inserted in a transaction that locks its
      // execution's row or the project's, so the cascade has waited for those that wrote any.
      await tx.delete(spans).where(eq(spans.projectId, deleted.id));
      await rollUpDeletedProject(tx, { projectId: deleted.id, workspaceId: deleted.workspaceId });
      await forgetExecutionCounts(tx, deleted.id);
      await recordAuditEvent(tx, deps, {
        action: "project.deleted",
        targetType: "project",
        targetId: deleted.id,
        workspaceId: deleted.workspaceId,
        actor: input.actor,
        data: { name: deleted.name },
      });
      return true;
    }),
  );
  if (!removed) return fail.notFound("project");
  deps.activeDeploymentChanges?.publish(input.projectId);
  return ok({ id: input.projectId });
}
