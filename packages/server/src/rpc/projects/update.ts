import { renameProject } from "../../projects/rename-project.ts";
import { notFoundMessage } from "../../shared/service-errors.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireProjectAccess } from "../project-access.ts";
import { requireScope } from "../require-scope.ts";
import { badRequest, notFound } from "../rpc-errors.ts";
import { toProject } from "./to-project.ts";

/** `projects.update`: renames a project the caller may change. */
export const update = rpc.projects.update.use(requireScope("projects:write")).handler(async ({ input, context }) => {
  await requireProjectAccess(context, input.projectId, { access: "write" });
  const result = await renameProject(context.platform.database.db, context.platform, {
    projectId: input.projectId,
    name: input.name,
    actor: actorOf(context),
  });
  if (result.kind === "not_found") throw notFound(notFoundMessage("project"));
  if (result.kind === "name_taken") {
    throw badRequest("Input validation failed", [
      { path: ["name"], message: `A project named "${input.name}" already exists in this workspace.` },
    ]);
  }
  return toProject(result.project);
});
