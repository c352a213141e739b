import { recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { projects } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import type { ProjectActor, ProjectRecord } from "./project-record.ts";

export type CreateProjectResult = { kind: "created"; project: ProjectRecord } | { kind: "name_taken" };

/** Creates a project in a workspace; names are unique per workspace. */
export async function createProject(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  input: { workspaceId: string; name: string; actor: ProjectActor },
): Promise<CreateProjectResult> {
  return db.transaction(async (tx) => {
    const now = deps.clock.now();
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
    if (project === undefined) return { kind: "name_taken" };
    await recordAuditEvent(tx, deps, {
      action: "project.created",
      targetType: "project",
      targetId: project.id,
      workspaceId: project.workspaceId,
      actor: input.actor,
      data: { name: project.name },
    });
    return { kind: "created", project };
  });
}
