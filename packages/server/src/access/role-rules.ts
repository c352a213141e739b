import type { WorkspaceRole } from "../db/schema/index.ts";

/** owner > admin > member > viewer (docs/decisions/0031-workspace-roles-invitations-and-agents.md). */
const rank: Record<WorkspaceRole, number> = { owner: 3, admin: 2, member: 1, viewer: 0 };

export function outranks(role: WorkspaceRole, other: WorkspaceRole): boolean {
  return rank[role] > rank[other];
}

/** Only owners and admins manage members, invitations, the audit log and other members' agents. */
export function managesMembers(role: WorkspaceRole): boolean {
  return role === "owner" || role === "admin";
}

/** Why `role` may not do `what`, an action only owners and admins may take ("manage members" by default). */
export const manageRefusal = (role: WorkspaceRole, what = "manage members") =>
  `Your ${role} role cannot ${what}: only an owner or an admin can.`;

/**
 * Why `actorRole` may not give `grantedRole`, or undefined when it may. Nobody grants a role above
 * their own.
 */
export function grantRefusal(actorRole: WorkspaceRole, grantedRole: WorkspaceRole): string | undefined {
  if (!managesMembers(actorRole)) return manageRefusal(actorRole);
  if (outranks(grantedRole, actorRole)) return `Your ${actorRole} role cannot grant the ${grantedRole} role.`;
  return undefined;
}

/** Why `actorRole` may not change or remove a member holding `targetRole`, or undefined. */
export function changeRefusal(actorRole: WorkspaceRole, targetRole: WorkspaceRole): string | undefined {
  if (!managesMembers(actorRole)) return manageRefusal(actorRole);
  if (outranks(targetRole, actorRole)) return `Your ${actorRole} role cannot change or remove an ${targetRole}.`;
  return undefined;
}
