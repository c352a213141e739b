import { and, eq, ne } from "drizzle-orm";
import { recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { projects } from "../db/schema/index.ts";
import { isUniqueViolation } from "../db/unique-violation.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { nameTakenMessage, type ProjectActor, type ProjectRecord } from "./project-record.ts";

export interface ProjectChanges {
  /** A new name, free in the project's workspace. */
  name?: string | undefined;
  /** Days its finished executions are kept; `null` follows the platform's WEFT_RETENTION_DAYS again. */
  retentionDays?: number | null | undefined;
}

/** Renames a project and/or sets its retention; each change made writes its own audit event. */
export async function updateProject(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  input: ProjectChanges & { projectId: string; actor: ProjectActor },
): Promise<ServiceResult<ProjectRecord>> {
  try {
    return await db.transaction(async (tx): Promise<ServiceResult<ProjectRecord>> => {
      const [before] = await tx.select().from(projects).where(eq(projects.id, input.projectId)).for("update");
      if (before === undefined) return fail.notFound("project");
      const rename = input.name !== undefined && input.name !== before.name ? input.name : undefined;
      const retain =
        input.retentionDays !== undefined && input.retentionDays !== before.retentionDays
          ? { days: input.retentionDays }
          : undefined;
      if (rename === undefined && retain === undefined) return ok(before);
      if (rename !== undefined) {
        const [taken] = await tx
          .select({ id: projects.id })
          .from(projects)
          .where(
            and(eq(projects.workspaceId, before.workspaceId), eq(projects.name, rename), ne(projects.id, before.id)),
          );
        if (taken !== undefined) return fail.conflict(nameTakenMessage(rename));
      }
      const [project] = await tx
        .update(projects)
        .set({
          ...(rename === undefined ? {} : { name: rename }),
          ...(retain === undefined ? {} : { retentionDays: retain.days }),
          updatedAt: deps.clock.now(),
        })
        .where(eq(projects.id, before.id))
        .returning();
      if (project === undefined) throw new Error(`project ${before.id} vanished under its row lock`);
      const audited = {
        targetType: "project",
        targetId: project.id,
        workspaceId: project.workspaceId,
        actor: input.actor,
      };
      if (rename !== undefined) {
        await recordAuditEvent(tx, deps, {
          ...audited,
          action: "project.renamed",
          data: { from: before.name, to: rename },
        });
      }
      if (retain !== undefined) {
        await recordAuditEvent(tx, deps, {
          ...audited,
          action: "project.retention_changed",
          data: { from: before.retentionDays, to: retain.days },
        });
      }
      return ok(project);
    });
  } catch (error) {
    // Two renames racing to the same free name: the unique index lets one win.
    if (isUniqueViolation(error) && input.name !== undefined) return fail.conflict(nameTakenMessage(input.name));
    throw error;
  }
}
