import { readPlanInForce } from "../../billing/plan-in-force.ts";
import { requireMemberManager } from "../access/require-member-manager.ts";
import { rpc } from "../implementer.ts";
import { valueOrRpcError } from "../service-failure.ts";

/** `billing.getPlan`: the workspace's plan, its quotas and this month's use, for owners and admins. */
export const getPlan = rpc.billing.getPlan.handler(async ({ input, context }) => {
  requireMemberManager(context.principal, input.workspaceId, "read the workspace's plan");
  const { platform } = context;
  const plan = await readPlanInForce(
    platform.database.db,
    { catalogue: platform.config.billing, now: platform.clock.now() },
    input.workspaceId,
  );
  return valueOrRpcError(plan);
});
