import { eq } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import { recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { accounts, invitations, memberships, type WorkspaceRole, workspaces } from "../db/schema/index.ts";
import { notifyAccessChanges } from "../identity/access-changes.ts";
import { findOrCreateAccount } from "../identity/accounts.ts";
import type { Clock } from "../shared/clock.ts";
import { hashSecret } from "../shared/secrets.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { type InvitationStatus, toInvitation } from "./invitation-record.ts";
import { type AccessDependencies, lockWorkspace } from "./workspace-membership.ts";

/** What the accept page shows: the workspace, who invited, and the role. */
export interface InvitationView {
  workspaceName: string;
  inviterEmail: string | null;
  email: string;
  role: WorkspaceRole;
  expiresAt: Date;
  status: InvitationStatus;
}

const inviters = alias(accounts, "inviters");

/** The invitation a link token names, or undefined. Reading it changes nothing. */
export async function viewInvitation(db: Database, deps: { clock: Clock }, token: string) {
  const [row] = await db
    .select({ invitation: invitations, workspaceName: workspaces.name, inviterEmail: inviters.email })
    .from(invitations)
    .innerJoin(workspaces, eq(workspaces.id, invitations.workspaceId))
    .leftJoin(inviters, eq(inviters.id, invitations.invitedByAccountId))
    .where(eq(invitations.tokenHash, hashSecret(token)));
  if (row === undefined) return undefined;
  const invitation = toInvitation(row.invitation, deps.clock.now());
  return {
    workspaceName: row.workspaceName,
    inviterEmail: row.inviterEmail,
    email: invitation.email,
    role: invitation.role,
    expiresAt: invitation.expiresAt,
    status: invitation.status,
  } satisfies InvitationView;
}

/**
 * Accepts a pending invitation: the invitee's account is created if the email is new, and joins
 * the workspace with the invited role. A link that is revoked, expired or used is a conflict.
 */
export async function acceptInvitation(
  db: Database,
  deps: AccessDependencies,
  token: string,
): Promise<ServiceResult<{ workspaceId: string; accountId: string; role: WorkspaceRole }>> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(invitations)
      .where(eq(invitations.tokenHash, hashSecret(token)))
      .for("update");
    if (row === undefined) return fail.notFound("invitation");
    const now = deps.clock.now();
    const { status } = toInvitation(row, now);
    if (status !== "pending") return fail.conflict(`This invitation is ${status}.`);
    await lockWorkspace(tx, row.workspaceId);
    const account = await findOrCreateAccount(tx, deps, row.email);
    await tx
      .insert(memberships)
      .values({ workspaceId: row.workspaceId, accountId: account.accountId, role: row.role, createdAt: now })
      .onConflictDoNothing();
    await tx.update(invitations).set({ acceptedAt: now }).where(eq(invitations.id, row.id));
    await recordAuditEvent(tx, deps, {
      action: "member.joined",
      targetType: "account",
      targetId: account.accountId,
      workspaceId: row.workspaceId,
      actor: { accountId: account.accountId, email: account.email },
      data: { invitationId: row.id, role: row.role },
    });
    await notifyAccessChanges(tx, { accountIds: [account.accountId] });
    return ok({ workspaceId: row.workspaceId, accountId: account.accountId, role: row.role });
  });
}
