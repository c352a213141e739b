import { runWorkflow } from "../../workflows/run-workflow.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireProjectAccess } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";

/** `workflows.run`: validates the input against the workflow's schema and queues an execution. */
export const run = rpc.workflows.run.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "write" });
  const { platform } = context;
  const started = await runWorkflow(platform.database.db, platform, {
    projectId: project.id,
    workflow: input.workflow,
    input: input.input,
    idempotencyKey: input.idempotencyKey,
    audit: { actor: actorOf(context), workspaceId: project.workspaceId },
  });
  const { executionId } = valueOrRpcError(started, { prefix: ["input"] });
  return { executionId };
});
