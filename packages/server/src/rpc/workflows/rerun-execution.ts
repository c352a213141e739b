import { rerunExecution as rerunExecutionService } from "../../workflows/rerun-execution.ts";
import { rpc } from "../implementer.ts";
import { actorOf } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { requireExecutionAccess } from "./execution-access.ts";

/** `workflows.rerunExecution`: a new execution with the same input, on the active deployment. */
export const rerunExecution = rpc.workflows.rerunExecution.handler(async ({ input, context }) => {
  const { projectId, workspaceId } = await requireExecutionAccess(context, input.executionId, { access: "write" });
  const rerun = await rerunExecutionService(context.platform.database.db, context.platform, {
    executionId: input.executionId,
    projectId,
    audit: { actor: actorOf(context), workspaceId },
  });
  return valueOrRpcError(rerun);
});
