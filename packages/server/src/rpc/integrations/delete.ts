import { deleteIntegration } from "../../integrations/delete-integration.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireProjectAccess } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";

/** `integrations.delete`: audited. */
export const remove = rpc.integrations.delete.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "write" });
  const result = await deleteIntegration(context.platform.database.db, context.platform, {
    projectId: project.id,
    workspaceId: project.workspaceId,
    name: input.name,
    actor: actorOf(context),
  });
  return { name: valueOrRpcError(result).name, deleted: true as const };
});
