import { listDeployedResources } from "../../resources/deployed-resources.ts";
import { rpc } from "../implementer.ts";
import { requireProjectAccess } from "../project-access.ts";
import { pageOfResources } from "./resource-page.ts";

/** `resources.list`: what the project's active deployment defines, with public addresses. */
export const list = rpc.resources.list.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "read" });
  const resources = await listDeployedResources(context.platform.database.db, {
    projectId: project.id,
    baseUrl: context.platform.config.baseUrl,
    kind: input.kind,
  });
  return pageOfResources(resources, input.pagination);
});
