import { removeMember as removeMemberService } from "../../access/remove-member.ts";
import { rpc } from "../implementer.ts";
import { requireWorkspaceChange } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";

/** `access.removeMember`: removes a member, or lets the caller leave (their own account id). */
export const removeMember = rpc.access.removeMember.handler(async ({ input, context }) => {
  const request = requireWorkspaceChange(context, input);
  const result = await removeMemberService(context.platform.database.db, context.platform, request);
  const removed = valueOrRpcError(result);
  // The removed member's cached credentials lose the workspace before this answer is sent.
  context.platform.membershipChanges.publish([removed.accountId]);
  return { accountId: removed.accountId, removed: true as const };
});
