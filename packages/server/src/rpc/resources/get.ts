import { listDeployedResources } from "../../resources/deployed-resources.ts";
import { rpc } from "../implementer.ts";
import { requireProjectAccess } from "../project-access.ts";
import { notFound } from "../rpc-errors.ts";

/** `resources.get`: one deployed workflow, form or webhook by kind and name. */
export const get = rpc.resources.get.handler(async ({ input, context }) => {
  const project = await requireProjectAccess(context, input.projectId, { access: "read" });
  const resources = await listDeployedResources(context.platform.database.db, {
    projectId: project.id,
    baseUrl: context.platform.config.baseUrl,
    kind: input.kind,
  });
  const resource = resources.find((candidate) => candidate.name === input.name);
  if (resource === undefined) {
    throw notFound(`The active deployment of project ${project.id} defines no ${input.kind} "${input.name}".`);
  }
  return resource;
});
