import { listDeployments } from "../../deployments/read-deployments.ts";
import { rpc } from "../implementer.ts";
import { toPageEnvelope, toPageRequest } from "../pagination.ts";
import { requireProjectAccess } from "../project-access.ts";
import { toDeployment } from "./to-deployment.ts";

/** `deployments.list`: a project's deployments, oldest first. */
export const list = rpc.deployments.list.handler(async ({ input, context }) => {
  const page = toPageRequest(input.pagination);
  const project = await requireProjectAccess(context, input.projectId, { access: "read" });
  const result = await listDeployments(context.platform.database.db, { projectId: project.id, page });
  return toPageEnvelope(result, toDeployment);
});
