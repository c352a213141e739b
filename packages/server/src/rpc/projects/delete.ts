import { deleteProject } from "../../projects/delete-project.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireProjectAccess } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";

/** `projects.delete`: deletes a project the caller may change. */
export const remove = rpc.projects.delete.handler(async ({ input, context }) => {
  await requireProjectAccess(context, input.projectId, { access: "write" });
  const deleted = await deleteProject(context.platform.database.db, context.platform, {
    projectId: input.projectId,
    actor: actorOf(context),
  });
  return { id: valueOrRpcError(deleted).id, deleted: true as const };
});
