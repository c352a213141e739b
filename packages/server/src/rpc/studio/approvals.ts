import { approvalsLimit } from "@weft/contract";
import { readApprovals } from "../../wait-tokens/read-approvals.ts";
import { rpc } from "../implementer.ts";
import { requireWholeWorkspaceReach, requireWorkspaceAccess } from "../project-access.ts";
import { toWaitToken } from "../workflows/to-execution.ts";

/** `studio.approvals`: what waits for an answer in a workspace, for any member. */
export const approvals = rpc.studio.approvals.handler(async ({ input, context }) => {
  const { principal, platform } = context;
  requireWorkspaceAccess(principal, input.workspaceId, "read");
  requireWholeWorkspaceReach(principal);
  const read = await readApprovals(platform.database.db, {
    workspaceId: input.workspaceId,
    now: platform.clock.now(),
    limit: approvalsLimit,
  });
  return {
    approvals: read.approvals.map((approval) => ({
      ...toWaitToken(approval),
      executionId: approval.executionId,
      projectId: approval.projectId,
      projectName: approval.projectName,
      workflow: approval.workflow,
    })),
    more: read.more,
  };
});
