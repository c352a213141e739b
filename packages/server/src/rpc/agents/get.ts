import { findVisibleAgent } from "../../agents/get-agent.ts";
import { rpc } from "../implementer.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toAgent } from "./to-agent.ts";

/** `agents.get`: one of the caller's agents, or of a member of a workspace the caller manages. */
export const get = rpc.agents.get.handler(async ({ input, context }) => {
  const result = await findVisibleAgent(context.platform.database.db, context.platform, {
    agentId: input.agentId,
    actorAccountId: context.principal.accountId,
  });
  return toAgent(valueOrRpcError(result).agent);
});
