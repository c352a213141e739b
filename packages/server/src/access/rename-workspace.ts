import { eq } from "drizzle-orm";
import { type AuditActor, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { workspaces } from "../db/schema/index.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { managesMembers } from "./role-rules.ts";
import { type AccessDependencies, lockActorRole } from "./workspace-membership.ts";
import type { WorkspaceOfMember } from "./workspace-of-member.ts";

/** Renames a workspace; only its owners and admins may. */
export async function renameWorkspace(
  db: Database,
  deps: AccessDependencies,
  input: { workspaceId: string; name: string; actor: AuditActor & { accountId: string } },
): Promise<ServiceResult<WorkspaceOfMember>> {
  return db.transaction(async (tx) => {
    const actorRole = await lockActorRole(tx, input.workspaceId, input.actor);
    if (!actorRole.ok) return actorRole;
    const role = actorRole.value;
    if (!managesMembers(role)) return fail.forbidden(`Your ${role} role cannot rename this workspace.`);
    const [before] = await tx.select().from(workspaces).where(eq(workspaces.id, input.workspaceId));
    if (before === undefined) return fail.notFound("workspace");
    if (before.name !== input.name) {
      await tx.update(workspaces).set({ name: input.name }).where(eq(workspaces.id, before.id));
      await recordAuditEvent(tx, deps, {
        action: "workspace.renamed",
        targetType: "workspace",
        targetId: before.id,
        workspaceId: before.id,
        actor: input.actor,
        data: { from: before.name, to: input.name },
      });
    }
    return ok({
      id: before.id,
      name: input.name,
      role,
      personal: before.personalAccountId !== null,
      createdAt: before.createdAt,
    });
  });
}
