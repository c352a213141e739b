import type { AuditEvent, Invitation, Member, Workspace } from "@weft/contract";
import type { Invitation as InvitationRecord } from "../../access/invitation-record.ts";
import type { Member as MemberRecord } from "../../access/list-members.ts";
import type { AuditEventRecord } from "../../access/read-audit-log.ts";
import type { WorkspaceOfMember } from "../../access/workspace-of-member.ts";

/** The wire shapes of the `access` namespace. */
export function toWorkspace(record: WorkspaceOfMember): Workspace {
  return { ...record, createdAt: record.createdAt.toISOString() };
}

export function toMember(record: MemberRecord): Member {
  return { accountId: record.id, email: record.email, role: record.role, joinedAt: record.joinedAt.toISOString() };
}

export function toInvitation(record: InvitationRecord): Invitation {
  return {
    id: record.id,
    workspaceId: record.workspaceId,
    email: record.email,
    role: record.role,
    invitedBy: record.invitedByAccountId,
    createdAt: record.createdAt.toISOString(),
    expiresAt: record.expiresAt.toISOString(),
    status: record.status,
  };
}

export function toAuditEvent(record: AuditEventRecord): AuditEvent {
  return {
    id: record.id,
    action: record.action,
    actor: {
      accountId: record.actorAccountId,
      email: record.actorEmail,
      credentialId: record.actorCredentialId,
      agentId: record.actorAgentId,
      agent: record.actorAgent,
      via: record.actorVia,
    },
    targetType: record.targetType,
    targetId: record.targetId,
    data: record.data,
    createdAt: record.createdAt.toISOString(),
  };
}
