import { revokeAllAgents } from "../../agents/revoke-agents.ts";
import { requireMemberManager } from "../access/require-member-manager.ts";
import { rpc } from "../implementer.ts";
import { actorOf } from "../project-access.ts";
import { revokedOrRpcError } from "../revoked-credentials.ts";

/** `agents.revokeAll`: incident response; every active credential of every member but the caller's own. */
export const revokeAll = rpc.agents.revokeAll.handler(async ({ input, context }) => {
  requireMemberManager(context.principal, input.workspaceId, "revoke every agent of the workspace");
  const result = await revokeAllAgents(context.platform.database.db, context.platform, {
    workspaceId: input.workspaceId,
    actor: actorOf(context),
  });
  const { revokedCredentialIds } = revokedOrRpcError(context, result);
  return { revoked: revokedCredentialIds.length };
});
