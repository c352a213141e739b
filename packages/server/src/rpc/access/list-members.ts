import { listMembers as listMembersService } from "../../access/list-members.ts";
import { rpc } from "../implementer.ts";
import { toPageEnvelope, toPageRequest } from "../pagination.ts";
import { requireWorkspaceAccess } from "../project-access.ts";
import { toMember } from "./to-access-records.ts";

/** `access.listMembers`: every member of a workspace the caller belongs to. */
export const listMembers = rpc.access.listMembers.handler(async ({ input, context }) => {
  const page = toPageRequest(input.pagination);
  requireWorkspaceAccess(context.principal, input.workspaceId, "read");
  const result = await listMembersService(context.platform.database.db, { workspaceId: input.workspaceId, page });
  return toPageEnvelope(result, toMember);
});
