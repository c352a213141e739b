import { deleteProject } from "../../projects/delete-project.ts";
import { notFoundMessage } from "../../shared/service-errors.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireProjectAccess } from "../project-access.ts";
import { requireScope } from "../require-scope.ts";
import { notFound } from "../rpc-errors.ts";

/** `projects.delete`: deletes a project the caller may change. */
export const remove = rpc.projects.delete.use(requireScope("projects:write")).handler(async ({ input, context }) => {
  await requireProjectAccess(context, input.projectId, { access: "write" });
  const deleted = await deleteProject(context.platform.database.db, context.platform, {
    projectId: input.projectId,
    actor: actorOf(context),
  });
  if (!deleted) throw notFound(notFoundMessage("project"));
  return { id: input.projectId, deleted: true as const };
});
