import { renameWorkspace as renameWorkspaceService } from "../../access/rename-workspace.ts";
import { rpc } from "../implementer.ts";
import { actorOf, requireWorkspaceAccess } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toWorkspace } from "./to-access-records.ts";

/** `access.renameWorkspace`: owners and admins rename a workspace. */
export const renameWorkspace = rpc.access.renameWorkspace.handler(async ({ input, context }) => {
  requireWorkspaceAccess(context.principal, input.workspaceId, "read");
  const result = await renameWorkspaceService(context.platform.database.db, context.platform, {
    workspaceId: input.workspaceId,
    name: input.name,
    actor: actorOf(context),
  });
  return toWorkspace(valueOrRpcError(result));
});
