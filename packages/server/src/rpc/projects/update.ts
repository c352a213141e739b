import { updateProject } from "../../projects/update-project.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireProjectAccess } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toProject } from "./to-project.ts";

/** `projects.update`: renames a project the caller may change, or sets its retention. */
export const update = rpc.projects.update.handler(async ({ input, context }) => {
  await requireProjectAccess(context, input.projectId, { access: "write" });
  const updated = await updateProject(context.platform.database.db, context.platform, {
    projectId: input.projectId,
    name: input.name,
    retentionDays: input.retentionDays,
    actor: actorOf(context),
  });
  return toProject(valueOrRpcError(updated));
});
