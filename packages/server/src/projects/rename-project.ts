import { and, eq, ne } from "drizzle-orm";
import { recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { projects } from "../db/schema/index.ts";
import { isUniqueViolation } from "../db/unique-violation.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { nameTakenMessage, type ProjectActor, type ProjectRecord } from "./project-record.ts";

/** Renames a project; the new name must be free in its workspace. */
export async function renameProject(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  input: { projectId: string; name: string; actor: ProjectActor },
): Promise<ServiceResult<ProjectRecord>> {
  try {
    return await db.transaction(async (tx): Promise<ServiceResult<ProjectRecord>> => {
      const [before] = await tx.select().from(projects).where(eq(projects.id, input.projectId)).for("update");
      if (before === undefined) return fail.notFound("project");
      if (before.name === input.name) return ok(before);
      const [taken] = await tx
        .select({ id: projects.id })
        .from(projects)
        .where(
          and(eq(projects.workspaceId, before.workspaceId), eq(projects.name, input.name), ne(projects.id, before.id)),
        );
      if (taken !== undefined) return fail.conflict(nameTakenMessage(input.name));
      const [project] = await tx
        .update(projects)
        .set({ name: input.name, updatedAt: deps.clock.now() })
        .where(eq(projects.id, before.id))
        .returning();
      if (project === undefined) return fail.notFound("project");
      await recordAuditEvent(tx, deps, {
        action: "project.renamed",
        targetType: "project",
        targetId: project.id,
        workspaceId: project.workspaceId,
        actor: input.actor,
        data: { from: before.name, to: project.name },
      });
      return ok(project);
    });
  } catch (error) {
    // Two renames racing to the same free name: the unique index lets one win.
    if (isUniqueViolation(error)) return fail.conflict(nameTakenMessage(input.name));
    throw error;
  }
}
