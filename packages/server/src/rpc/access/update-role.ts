import { updateRole as updateRoleService } from "../../access/update-role.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireWorkspaceAccess } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toMember } from "./to-access-records.ts";

/** `access.updateRole`: gives a member another role, within the role rules. */
export const updateRole = rpc.access.updateRole.handler(async ({ input, context }) => {
  requireWorkspaceAccess(context.principal, input.workspaceId, "read");
  const result = await updateRoleService(context.platform.database.db, context.platform, {
    workspaceId: input.workspaceId,
    accountId: input.accountId,
    role: input.role,
    actor: actorOf(context),
  });
  const change = valueOrRpcError(result);
  context.platform.membershipChanges.publish([change.member.id]);
  return toMember(change.member);
});
