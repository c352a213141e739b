import { and, eq, gt, isNull } from "drizzle-orm";
import { type AuditActor, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { accounts, invitations, memberships, type WorkspaceRole, workspaces } from "../db/schema/index.ts";
import { normalizeEmail } from "../identity/accounts.ts";
import type { Mailer } from "../mail/mailer.ts";
import { generateToken, hashSecret } from "../shared/secrets.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { invitationMail, invitationPageUrl } from "./invitation-mail.ts";
import { type Invitation, invitationLifetimeMs, toInvitation } from "./invitation-record.ts";
import { grantRefusal } from "./role-rules.ts";
import { type AccessDependencies, lockActorRole } from "./workspace-membership.ts";

interface CreatedInvitation {
  invitation: Invitation;
  workspaceName: string;
  /** The secret of the accept link: returned once for the mail, only its digest is stored. */
  token: string;
}

/**
 * Invites an email into a workspace with a role the caller may grant, and mails the accept link once
 * the invitation is committed. Refused for an email that is already a member's or has a pending
 * invitation (conflicts); under the workspace's lock two concurrent invitations of one email
 * cannot both pass that check.
 */
export async function inviteMember(
  db: Database,
  deps: AccessDependencies & { mailer: Mailer; authUrl: string },
  input: { workspaceId: string; email: string; role: WorkspaceRole; actor: AuditActor & { accountId: string } },
): Promise<ServiceResult<Invitation>> {
  const created = await createInvitation(db, deps, input);
  if (!created.ok) return created;
  const { invitation, workspaceName, token } = created.value;
  await deps.mailer.send(
    invitationMail({
      to: invitation.email,
      inviterEmail: input.actor.email,
      workspaceName,
      role: invitation.role,
      acceptUrl: invitationPageUrl(deps.authUrl, token),
      expiresAt: invitation.expiresAt,
    }),
  );
  return ok(invitation);
}

async function createInvitation(
  db: Database,
  deps: AccessDependencies,
  input: { workspaceId: string; email: string; role: WorkspaceRole; actor: AuditActor & { accountId: string } },
): Promise<ServiceResult<CreatedInvitation>> {
  const email = normalizeEmail(input.email);
  return db.transaction(async (tx) => {
    const actorRole = await lockActorRole(tx, input.workspaceId, input.actor);
    if (!actorRole.ok) return actorRole;
    const refusal = grantRefusal(actorRole.value, input.role);
    if (refusal !== undefined) return fail.forbidden(refusal);
    const [workspace] = await tx.select().from(workspaces).where(eq(workspaces.id, input.workspaceId));
    if (workspace === undefined) return fail.notFound("workspace");
    const [member] = await tx
      .select({ accountId: accounts.id })
      .from(memberships)
      .innerJoin(accounts, eq(accounts.id, memberships.accountId))
      .where(and(eq(memberships.workspaceId, input.workspaceId), eq(accounts.email, email)));
    if (member !== undefined) return fail.conflict(`${email} is already a member of this workspace.`);
    const now = deps.clock.now();
    const [pending] = await tx
      .select({ id: invitations.id })
      .from(invitations)
      .where(
        and(
          eq(invitations.workspaceId, input.workspaceId),
          eq(invitations.email, email),
          isNull(invitations.acceptedAt),
          isNull(invitations.revokedAt),
          gt(invitations.expiresAt, now),
        ),
      );
    if (pending !== undefined) {
      return fail.conflict(`${email} already has a pending invitation; revoke it to send another.`);
    }
    const token = generateToken("ivt");
    const [row] = await tx
      .insert(invitations)
      .values({
        id: deps.ids("invitation"),
        workspaceId: input.workspaceId,
        email,
        role: input.role,
        tokenHash: hashSecret(token),
        invitedByAccountId: input.actor.accountId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + invitationLifetimeMs),
      })
      .returning();
    if (row === undefined) throw new Error("invitation insert returned nothing");
    await recordAuditEvent(tx, deps, {
      action: "member.invited",
      targetType: "invitation",
      targetId: row.id,
      workspaceId: input.workspaceId,
      actor: input.actor,
      data: { email, role: input.role },
    });
    return ok({ invitation: toInvitation(row, now), workspaceName: workspace.name, token });
  });
}
