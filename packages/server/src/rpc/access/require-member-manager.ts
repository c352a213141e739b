import { manageRefusal, managesMembers } from "../../access/role-rules.ts";
import type { Principal } from "../context.ts";
import { requireWorkspaceAccess } from "../project-access.ts";
import { forbidden } from "../rpc-errors.ts";

/**
 * Refuses a read that only owners and admins may make (invitations, the audit log): NOT_FOUND
 * outside the workspace, FORBIDDEN for members and viewers.
 */
export function requireMemberManager(principal: Principal, workspaceId: string, what: string): void {
  requireWorkspaceAccess(principal, workspaceId, "read");
  const role = principal.workspaces.get(workspaceId);
  if (role !== undefined && !managesMembers(role)) throw forbidden(manageRefusal(role, what));
}
