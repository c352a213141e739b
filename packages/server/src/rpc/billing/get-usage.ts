import { readUsage } from "../../billing/read-usage.ts";
import { requireMemberManager } from "../access/require-member-manager.ts";
import { rpc } from "../implementer.ts";

/** `billing.getUsage`: the workspace's meters between two instants, by UTC day or by project. */
export const getUsage = rpc.billing.getUsage.handler(async ({ input, context }) => {
  requireMemberManager(context.principal, input.workspaceId, "read the workspace's usage");
  return readUsage(context.platform.database.db, {
    workspaceId: input.workspaceId,
    from: new Date(input.from),
    to: new Date(input.to),
    groupBy: input.groupBy,
  });
});
