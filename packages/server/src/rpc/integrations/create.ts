import { createIntegration } from "../../integrations/create-integration.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireProjectAccess } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { integrationDependencies } from "./integration-dependencies.ts";
import { toIntegration } from "./to-integration.ts";

/** `integrations.create`: audited by name and kind; the answer shows secrets only as hints. */
export const create = rpc.integrations.create.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "write" });
  const { projectId: _, ...integration } = input;
  const result = await createIntegration(context.platform.database.db, integrationDependencies(context.platform), {
    projectId: project.id,
    workspaceId: project.workspaceId,
    actor: actorOf(context),
    integration,
  });
  return toIntegration(valueOrRpcError(result));
});
