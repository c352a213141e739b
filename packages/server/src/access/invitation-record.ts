import type { invitations, WorkspaceRole } from "../db/schema/index.ts";

/** Invitations are accepted within 7 days of being sent. */
export const invitationLifetimeMs = 7 * 24 * 60 * 60 * 1000;

export type InvitationStatus = "pending" | "accepted" | "revoked" | "expired";

export interface Invitation {
  id: string;
  workspaceId: string;
  email: string;
  role: WorkspaceRole;
  invitedByAccountId: string | null;
  createdAt: Date;
  expiresAt: Date;
  status: InvitationStatus;
}

export function toInvitation(row: typeof invitations.$inferSelect, now: Date): Invitation {
  const status: InvitationStatus =
    row.acceptedAt !== null
      ? "accepted"
      : row.revokedAt !== null
        ? "revoked"
        : row.expiresAt.getTime() <= now.getTime()
          ? "expired"
          : "pending";
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    email: row.email,
    role: row.role,
    invitedByAccountId: row.invitedByAccountId,
    createdAt: row.createdAt,
    expiresAt: row.expiresAt,
    status,
  };
}
