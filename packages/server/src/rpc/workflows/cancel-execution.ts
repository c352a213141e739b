import { cancelExecution as cancelExecutionService } from "../../workflows/cancel-execution.ts";
import { rpc } from "../implementer.ts";
import { actorOf } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { requireExecutionAccess } from "./execution-access.ts";

/** `workflows.cancelExecution`: cancels now, or (running) at the next step boundary. */
export const cancelExecution = rpc.workflows.cancelExecution.handler(async ({ input, context }) => {
  const { projectId, workspaceId } = await requireExecutionAccess(context, input.executionId, { access: "write" });
  const cancelled = await cancelExecutionService(context.platform.database.db, context.platform, {
    executionId: input.executionId,
    projectId,
    audit: { actor: actorOf(context), workspaceId },
  });
  const { status } = valueOrRpcError(cancelled);
  return { executionId: input.executionId, status };
});
