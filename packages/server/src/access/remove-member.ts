import { type AuditActor, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { memberships } from "../db/schema/index.ts";
import { notifyAccessChanges } from "../identity/access-changes.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { changeRefusal } from "./role-rules.ts";
import { type AccessDependencies, isLastOwner, lockRolesOf, membershipOf } from "./workspace-membership.ts";

/**
 * Removes a member, or lets a member leave. The last owner can do neither (a conflict); an admin
 * cannot remove an owner; members and viewers can only leave.
 */
export async function removeMember(
  db: Database,
  deps: AccessDependencies,
  input: { workspaceId: string; accountId: string; actor: AuditActor & { accountId: string } },
): Promise<ServiceResult<{ accountId: string; left: boolean }>> {
  return db.transaction(async (tx) => {
    const roles = await lockRolesOf(tx, input);
    if (!roles.ok) return roles;
    const { actorRole, targetRole } = roles.value;
    const leaving = input.accountId === input.actor.accountId;
    if (!leaving) {
      const refusal = changeRefusal(actorRole, targetRole);
      if (refusal !== undefined) return fail.forbidden(refusal);
    }
    if (targetRole === "owner" && (await isLastOwner(tx, input.workspaceId, input.accountId))) {
      return fail.conflict(
        leaving
          ? "You are the workspace's last owner: make another member owner before you leave."
          : "This is the workspace's last owner.",
      );
    }
    await tx.delete(memberships).where(membershipOf(input.workspaceId, input.accountId));
    await recordAuditEvent(tx, deps, {
      action: leaving ? "member.left" : "member.removed",
      targetType: "account",
      targetId: input.accountId,
      workspaceId: input.workspaceId,
      actor: input.actor,
      data: { role: targetRole },
    });
    await notifyAccessChanges(tx, { accountIds: [input.accountId] });
    return ok({ accountId: input.accountId, left: leaving });
  });
}
