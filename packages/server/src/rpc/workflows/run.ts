import { checkRunOptions } from "../../workflows/run-options.ts";
import { runWorkflow } from "../../workflows/run-workflow.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireProjectAccess } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";

/** `workflows.run`: validates the input against the workflow's schema and queues an execution (delayed, tagged). */
export const run = rpc.workflows.run.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "write" });
  const { platform } = context;
  const { delayMs, ttlMs } = valueOrRpcError(checkRunOptions(input));
  const started = await runWorkflow(platform.database.db, platform, {
    projectId: project.id,
    workflow: input.workflow,
    input: input.input,
    idempotencyKey: input.idempotencyKey,
    tags: input.tags,
    delayMs,
    ttlMs,
    audit: { actor: actorOf(context), workspaceId: project.workspaceId },
  });
  const { executionId, flowControl } = valueOrRpcError(started, { prefix: ["input"] });
  return { executionId, ...(flowControl === undefined ? {} : { flowControl }) };
});
