import { completeWaitToken } from "../../wait-tokens/complete-wait-token.ts";
import { tokenDecisions } from "../../wait-tokens/token-decisions.ts";
import { rpc } from "../implementer.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { requireExecutionChange } from "./execution-access.ts";

/**
 * `workflows.answerToken`: a member who may change the execution's project approves or rejects one
 * of its tokens by name (Studio never holds a token's id); the answer records their account.
 */
export const answerToken = rpc.workflows.answerToken.handler(async ({ input, context }) => {
  const { platform } = context;
  const change = await requireExecutionChange(context, input.executionId);
  const completed = await completeWaitToken(platform.database.db, platform, {
    executionId: change.executionId,
    name: input.name,
    data: tokenDecisions[input.decision],
    projectId: change.projectId,
    completedBy: context.principal.accountId,
    audit: { ...change.audit, ids: platform.ids },
  });
  const { executionId } = valueOrRpcError(completed);
  return { executionId, status: "completed" as const };
});
