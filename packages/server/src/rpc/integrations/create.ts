import { createIntegration } from "../../integrations/create-integration.ts";
import { rpc } from "../implementer.ts";
import { requireProjectChange } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { integrationDependencies } from "./integration-dependencies.ts";
import { toIntegration } from "./to-integration.ts";

/** `integrations.create`: audited by name and kind; the answer shows secrets only as hints. */
export const create = rpc.integrations.create.handler(async ({ input, context }) => {
  const projectChange = await requireProjectChange(context, input.projectId);
  const { projectId: _, ...integration } = input;
  const result = await createIntegration(context.platform.database.db, integrationDependencies(context.platform), {
    ...projectChange,
    integration,
  });
  return toIntegration(valueOrRpcError(result));
});
