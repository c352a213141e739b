import { listIntegrations } from "../../integrations/read-integrations.ts";
import { rpc } from "../implementer.ts";
import { stringKeyCursor, toPageEnvelope, toPageRequest } from "../pagination.ts";
import { requireProjectAccess } from "../project-access.ts";
import { toIntegration } from "./to-integration.ts";

/** An integration's place in the list: its name, unique within the project. */
const integrationCursor = stringKeyCursor("integration");

/** `integrations.list`: the project's integrations by name, secrets masked. */
export const list = rpc.integrations.list.handler(async ({ input, context }) => {
  const page = toPageRequest(input.pagination, integrationCursor);
  const project = await requireProjectAccess(context, input.projectId, { access: "read" });
  const result = await listIntegrations(context.platform.database.db, { projectId: project.id, page });
  return toPageEnvelope(result, toIntegration, (integration) => integrationCursor.encode(integration.name));
});
