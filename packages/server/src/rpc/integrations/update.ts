import { updateIntegration } from "../../integrations/update-integration.ts";
import { rpc } from "../implementer.ts";
import { requireProjectChange } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { integrationDependencies } from "./integration-dependencies.ts";
import { toIntegration } from "./to-integration.ts";

/** `integrations.update`: audited by the names of what changed, never its values. */
export const update = rpc.integrations.update.handler(async ({ input, context }) => {
  const projectChange = await requireProjectChange(context, input.projectId);
  const { projectId: _, ...change } = input;
  const result = await updateIntegration(context.platform.database.db, integrationDependencies(context.platform), {
    ...projectChange,
    change,
  });
  return toIntegration(valueOrRpcError(result));
});
