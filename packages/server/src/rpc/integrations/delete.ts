import { deleteIntegration } from "../../integrations/delete-integration.ts";
import { rpc } from "../implementer.ts";
import { requireProjectChange } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";

/** `integrations.delete`: audited. */
export const remove = rpc.integrations.delete.handler(async ({ input, context }) => {
  const projectChange = await requireProjectChange(context, input.projectId);
  const result = await deleteIntegration(context.platform.database.db, context.platform, {
    ...projectChange,
    name: input.name,
  });
  return { name: valueOrRpcError(result).name, deleted: true as const };
});
