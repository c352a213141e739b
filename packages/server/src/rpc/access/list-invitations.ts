import { listInvitations as listInvitationsService } from "../../access/list-invitations.ts";
import { rpc } from "../implementer.ts";
import { toPageEnvelope, toPageRequest } from "../pagination.ts";
import { requireMemberManager } from "./require-member-manager.ts";
import { toInvitation } from "./to-access-records.ts";

/** `access.listInvitations`: a workspace's invitations, for its owners and admins. */
export const listInvitations = rpc.access.listInvitations.handler(async ({ input, context }) => {
  const page = toPageRequest(input.pagination);
  requireMemberManager(context.principal, input.workspaceId, "list invitations");
  const result = await listInvitationsService(context.platform.database.db, context.platform, {
    workspaceId: input.workspaceId,
    page,
  });
  return toPageEnvelope(result, toInvitation);
});
