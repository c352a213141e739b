import { rpc } from "../implementer.ts";
import { readableDeployedResources } from "./readable-resources.ts";
import { pageOfResources } from "./resource-page.ts";

/** `resources.list`: what the project's active deployment defines, with public addresses. */
export const list = rpc.resources.list.handler(async ({ input, context }) => {
  const { resources } = await readableDeployedResources(context, input);
  return pageOfResources(resources, input.pagination);
});
