import { rpc } from "../implementer.ts";
import { notFound } from "../rpc-errors.ts";
import { readableDeployedResources } from "./readable-resources.ts";

/** `resources.get`: one deployed workflow, form or webhook by kind and name. */
export const get = rpc.resources.get.handler(async ({ input, context }) => {
  const { project, resources } = await readableDeployedResources(context, input);
  const resource = resources.find((candidate) => candidate.name === input.name);
  if (resource === undefined) {
    throw notFound(`The active deployment of project ${project.id} defines no ${input.kind} "${input.name}".`);
  }
  return resource;
});
