import { readIntegration } from "../../integrations/read-integrations.ts";
import { rpc } from "../implementer.ts";
import { requireProjectAccess } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toIntegration } from "./to-integration.ts";

/** `integrations.get`: one integration, secrets masked. */
export const get = rpc.integrations.get.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "read" });
  const result = await readIntegration(context.platform.database.db, { projectId: project.id, name: input.name });
  return toIntegration(valueOrRpcError(result));
});
