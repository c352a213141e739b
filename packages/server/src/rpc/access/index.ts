import { auditLog } from "./audit-log.ts";
import { createFederationPolicy } from "./create-federation-policy.ts";
import { createWorkspace } from "./create-workspace.ts";
import { deleteFederationPolicy } from "./delete-federation-policy.ts";
import { invite } from "./invite.ts";
import { listFederationPolicies } from "./list-federation-policies.ts";
import { listInvitations } from "./list-invitations.ts";
import { listMembers } from "./list-members.ts";
import { listWorkspaces } from "./list-workspaces.ts";
import { removeMember } from "./remove-member.ts";
import { renameWorkspace } from "./rename-workspace.ts";
import { revokeInvitation } from "./revoke-invitation.ts";
import { updateRole } from "./update-role.ts";

/** The `access` namespace: one file per procedure. */
export const accessRouter = {
  createWorkspace,
  listWorkspaces,
  renameWorkspace,
  listMembers,
  invite,
  listInvitations,
  revokeInvitation,
  updateRole,
  removeMember,
  auditLog,
  createFederationPolicy,
  listFederationPolicies,
  deleteFederationPolicy,
};
