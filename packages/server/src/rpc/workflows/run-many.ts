import { runWorkflowMany } from "../../workflows/run-many.ts";
import { checkRunOptions } from "../../workflows/run-options.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireProjectAccess } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";

/** `workflows.runMany`: one execution per input, in one transaction; a refused input starts none. */
export const runMany = rpc.workflows.runMany.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "write" });
  const { platform } = context;
  const { delayMs, ttlMs } = valueOrRpcError(checkRunOptions(input));
  const started = await runWorkflowMany(platform.database.db, platform, {
    projectId: project.id,
    workflow: input.workflow,
    inputs: input.inputs,
    tags: input.tags,
    delayMs,
    ttlMs,
    audit: { actor: actorOf(context), workspaceId: project.workspaceId },
  });
  return valueOrRpcError(started);
});
