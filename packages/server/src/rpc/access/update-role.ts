import { updateRole as updateRoleService } from "../../access/update-role.ts";
import { rpc } from "../implementer.ts";
import { requireWorkspaceChange } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toMember } from "./to-access-records.ts";

/** `access.updateRole`: gives a member another role, within the role rules. */
export const updateRole = rpc.access.updateRole.handler(async ({ input, context }) => {
  const request = requireWorkspaceChange(context, input);
  const result = await updateRoleService(context.platform.database.db, context.platform, request);
  const change = valueOrRpcError(result);
  context.platform.membershipChanges.publish([change.member.id]);
  return toMember(change.member);
});
