import { revokeAgent } from "../../agents/revoke-agents.ts";
import { rpc } from "../implementer.ts";
import { actorOf } from "../project-access.ts";
import { revokedOrRpcError } from "../revoked-credentials.ts";
import { toAgent } from "./to-agent.ts";

/** `agents.revoke`: the agent's credential is refused from its very next request, in every process. */
export const revoke = rpc.agents.revoke.handler(async ({ input, context }) => {
  const result = await revokeAgent(context.platform.database.db, context.platform, {
    agentId: input.agentId,
    actor: actorOf(context),
  });
  const revoked = revokedOrRpcError(context, result);
  return toAgent(revoked.agent);
});
