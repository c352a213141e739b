import { getExecution as getExecutionService } from "../../workflows/read-executions.ts";
import { rpc } from "../implementer.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { requireExecutionAccess } from "./execution-access.ts";
import { toExecution } from "./to-execution.ts";

/** `workflows.getExecution`: status, input, output, error, attempts and steps with timings and logs. */
export const getExecution = rpc.workflows.getExecution.handler(async ({ input, context }) => {
  const { projectId } = await requireExecutionAccess(context, input.executionId, { access: "read" });
  const detail = valueOrRpcError(
    await getExecutionService(context.platform.database.db, { executionId: input.executionId, projectId }),
  );
  return toExecution(detail);
});
