import { eq } from "drizzle-orm";
import { type AuditActor, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { accounts, memberships, type WorkspaceRole } from "../db/schema/index.ts";
import { notifyAccessChanges } from "../identity/access-changes.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import type { Member } from "./list-members.ts";
import { changeRefusal, grantRefusal } from "./role-rules.ts";
import { type AccessDependencies, isLastOwner, lockRolesOf, membershipOf } from "./workspace-membership.ts";

export interface RoleChange {
  member: Member;
  from: WorkspaceRole;
}

/**
 * Gives a member another role. Refused: for a caller who may not manage members or not this
 * member (an admin and an owner), a role above the caller's own, the caller's own role, and the
 * demotion of the last owner (a conflict: the workspace would have none).
 */
export async function updateRole(
  db: Database,
  deps: AccessDependencies,
  input: { workspaceId: string; accountId: string; role: WorkspaceRole; actor: AuditActor & { accountId: string } },
): Promise<ServiceResult<RoleChange>> {
  return db.transaction(async (tx) => {
    const roles = await lockRolesOf(tx, input);
    if (!roles.ok) return roles;
    const { actorRole, targetRole } = roles.value;
    const refusal = changeRefusal(actorRole, targetRole) ?? grantRefusal(actorRole, input.role);
    if (refusal !== undefined) return fail.forbidden(refusal);
    if (
      targetRole === "owner" &&
      input.role !== "owner" &&
      (await isLastOwner(tx, input.workspaceId, input.accountId))
    ) {
      return fail.conflict("This is the workspace's last owner: make another member owner first.");
    }
    if (input.accountId === input.actor.accountId) {
      return fail.invalid("Input validation failed", [
        { path: "accountId", message: "You cannot change your own role; ask another owner or admin." },
      ]);
    }
    if (targetRole !== input.role) {
      await tx.update(memberships).set({ role: input.role }).where(membershipOf(input.workspaceId, input.accountId));
      await recordAuditEvent(tx, deps, {
        action: "member.role_changed",
        targetType: "account",
        targetId: input.accountId,
        workspaceId: input.workspaceId,
        actor: input.actor,
        data: { from: targetRole, to: input.role },
      });
      await notifyAccessChanges(tx, { accountIds: [input.accountId] });
    }
    const [member] = await tx
      .select({ email: accounts.email, joinedAt: memberships.createdAt })
      .from(memberships)
      .innerJoin(accounts, eq(accounts.id, memberships.accountId))
      .where(membershipOf(input.workspaceId, input.accountId));
    // The workspace is locked since the start: the membership just read cannot be gone.
    if (member === undefined) throw new Error(`membership of ${input.accountId} vanished under the workspace lock`);
    return ok({ member: { id: input.accountId, role: input.role, ...member }, from: targetRole });
  });
}
