import { rpc } from "../implementer.ts";
import { requireProjectAccess } from "../project-access.ts";
import { toProject } from "./to-project.ts";

/** `projects.get`: one project the caller can see. */
export const get = rpc.projects.get.handler(async ({ input, context }) => {
  return toProject(await requireProjectAccess(context, input.projectId, { access: "read" }));
});
