import { updateIntegration } from "../../integrations/update-integration.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireProjectAccess } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { integrationDependencies } from "./integration-dependencies.ts";
import { toIntegration } from "./to-integration.ts";

/** `integrations.update`: audited by the names of what changed, never its values. */
export const update = rpc.integrations.update.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "write" });
  const { projectId: _, ...change } = input;
  const result = await updateIntegration(context.platform.database.db, integrationDependencies(context.platform), {
    projectId: project.id,
    workspaceId: project.workspaceId,
    actor: actorOf(context),
    change,
  });
  return toIntegration(valueOrRpcError(result));
});
