import { cancelExecution as cancelExecutionService } from "../../workflows/cancel-execution.ts";
import { rpc } from "../implementer.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { requireExecutionChange } from "./execution-access.ts";

/** `workflows.cancelExecution`: cancels now, or (running) at the next step boundary. */
export const cancelExecution = rpc.workflows.cancelExecution.handler(async ({ input, context }) => {
  const executionChange = await requireExecutionChange(context, input.executionId);
  const cancelled = await cancelExecutionService(context.platform.database.db, context.platform, executionChange);
  const { status } = valueOrRpcError(cancelled);
  return { executionId: input.executionId, status };
});
