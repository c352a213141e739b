import { rerunExecution as rerunExecutionService } from "../../workflows/rerun-execution.ts";
import { rpc } from "../implementer.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { requireExecutionChange } from "./execution-access.ts";

/** `workflows.rerunExecution`: a new execution with the same input, on the active deployment. */
export const rerunExecution = rpc.workflows.rerunExecution.handler(async ({ input, context }) => {
  const executionChange = await requireExecutionChange(context, input.executionId);
  const rerun = await rerunExecutionService(context.platform.database.db, context.platform, executionChange);
  return valueOrRpcError(rerun);
});
