import { eq } from "drizzle-orm";
import { type AuditActor, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { invitations } from "../db/schema/index.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { type Invitation, toInvitation } from "./invitation-record.ts";
import { manageRefusal, managesMembers } from "./role-rules.ts";
import { type AccessDependencies, lockWorkspace, roleOf } from "./workspace-membership.ts";

/**
 * Cancels a pending invitation; its link stops working. An invitation of a workspace the caller is
 * not in is NOT_FOUND, like one that does not exist.
 */
export async function revokeInvitation(
  db: Database,
  deps: AccessDependencies,
  input: { invitationId: string; actor: AuditActor & { accountId: string } },
): Promise<ServiceResult<Invitation>> {
  return db.transaction(async (tx) => {
    const [row] = await tx.select().from(invitations).where(eq(invitations.id, input.invitationId)).for("update");
    if (row === undefined) return fail.notFound("invitation");
    await lockWorkspace(tx, row.workspaceId);
    const actorRole = await roleOf(tx, row.workspaceId, input.actor.accountId);
    if (actorRole === undefined) return fail.notFound("invitation");
    if (!managesMembers(actorRole)) return fail.forbidden(manageRefusal(actorRole));
    const now = deps.clock.now();
    const current = toInvitation(row, now);
    if (current.status !== "pending") return fail.conflict(`This invitation is ${current.status}, no longer pending.`);
    const [revoked] = await tx
      .update(invitations)
      .set({ revokedAt: now })
      .where(eq(invitations.id, row.id))
      .returning();
    if (revoked === undefined) return fail.notFound("invitation");
    await recordAuditEvent(tx, deps, {
      action: "invitation.revoked",
      targetType: "invitation",
      targetId: row.id,
      workspaceId: row.workspaceId,
      actor: input.actor,
      data: { email: row.email, role: row.role },
    });
    return ok(toInvitation(revoked, now));
  });
}
