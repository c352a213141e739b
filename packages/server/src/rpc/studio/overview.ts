import { managesMembers } from "../../access/role-rules.ts";
import { readOverview } from "../../studio/overview.ts";
import { toAgent } from "../agents/to-agent.ts";
import { rpc } from "../implementer.ts";
import { requireWholeWorkspaceReach, requireWorkspaceAccess } from "../project-access.ts";

/** `studio.overview`: a workspace at a glance, for any member; usage and every member's agents for owners and admins. */
export const overview = rpc.studio.overview.handler(async ({ input, context }) => {
  const { principal, platform } = context;
  requireWorkspaceAccess(principal, input.workspaceId, "read");
  requireWholeWorkspaceReach(principal);
  const role = principal.workspaces.get(input.workspaceId);
  const manager = role !== undefined && managesMembers(role);
  const read = await readOverview(
    platform.database.db,
    { catalogue: platform.config.billing, now: platform.clock.now() },
    {
      workspaceId: input.workspaceId,
      agentsOf: manager ? { workspaceId: input.workspaceId } : { accountId: principal.accountId },
      withUsage: manager,
    },
  );
  return { ...read, activeAgents: read.activeAgents.map(toAgent) };
});
