import { createProject } from "../../projects/create-project.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireWorkspaceAccess } from "../project-access.ts";
import { badRequest } from "../rpc-errors.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toProject } from "./to-project.ts";

/** `projects.create`: a new project in the named workspace, by default the caller's personal one. */
export const create = rpc.projects.create.handler(async ({ input, context }) => {
  const workspaceId = input.workspaceId ?? context.principal.personalWorkspaceId;
  if (workspaceId === undefined) {
    throw badRequest("Input validation failed", [
      { path: ["workspaceId"], message: "You have no personal workspace: name the workspace." },
    ]);
  }
  requireWorkspaceAccess(context.principal, workspaceId, "write");
  const created = await createProject(context.platform.database.db, context.platform, {
    workspaceId,
    name: input.name,
    actor: actorOf(context),
  });
  return toProject(valueOrRpcError(created));
});
