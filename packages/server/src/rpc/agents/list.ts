import { listAgents } from "../../agents/list-agents.ts";
import { requireMemberManager } from "../access/require-member-manager.ts";
import { rpc } from "../implementer.ts";
import { toPageEnvelope, toPageRequest } from "../pagination.ts";
import { toAgent } from "./to-agent.ts";

/** `agents.list`: the caller's agents, or with `workspaceId` (owner, admin) every member's. */
export const list = rpc.agents.list.handler(async ({ input, context }) => {
  const page = toPageRequest(input.pagination);
  if (input.workspaceId !== undefined)
    requireMemberManager(context.principal, input.workspaceId, "list the workspace's agents");
  const result = await listAgents(context.platform.database.db, context.platform, {
    of:
      input.workspaceId === undefined ? { accountId: context.principal.accountId } : { workspaceId: input.workspaceId },
    ...(input.status === undefined ? {} : { status: input.status }),
    page,
  });
  return toPageEnvelope(result, toAgent);
});
