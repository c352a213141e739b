import { listProjects } from "../../projects/list-projects.ts";
import { rpc } from "../implementer.ts";
import { toPageEnvelope, toPageRequest } from "../pagination.ts";
import { requireWorkspaceAccess } from "../project-access.ts";
import { toProject } from "./to-project.ts";

/** `projects.list`: the projects of every workspace the caller belongs to, or of one of them. */
export const list = rpc.projects.list.handler(async ({ input, context }) => {
  const page = toPageRequest(input.pagination);
  if (input.workspaceId !== undefined) requireWorkspaceAccess(context.principal, input.workspaceId, "read");
  const workspaceIds = input.workspaceId === undefined ? [...context.principal.workspaces.keys()] : [input.workspaceId];
  const result = await listProjects(context.platform.database.db, {
    workspaceIds,
    onlyProjectId: context.principal.projectId,
    page,
  });
  return toPageEnvelope(result, toProject);
});
