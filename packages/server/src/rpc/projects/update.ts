import { renameProject } from "../../projects/rename-project.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireProjectAccess } from "../project-access.ts";
import { requireScope } from "../require-scope.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toProject } from "./to-project.ts";

/** `projects.update`: renames a project the caller may change. */
export const update = rpc.projects.update.use(requireScope("projects:write")).handler(async ({ input, context }) => {
  await requireProjectAccess(context, input.projectId, { access: "write" });
  const renamed = await renameProject(context.platform.database.db, context.platform, {
    projectId: input.projectId,
    name: input.name,
    actor: actorOf(context),
  });
  return toProject(valueOrRpcError(renamed));
});
