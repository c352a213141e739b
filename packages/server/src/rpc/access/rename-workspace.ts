import { renameWorkspace as renameWorkspaceService } from "../../access/rename-workspace.ts";
import { rpc } from "../implementer.ts";
import { requireWorkspaceChange } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toWorkspace } from "./to-access-records.ts";

/** `access.renameWorkspace`: owners and admins rename a workspace. */
export const renameWorkspace = rpc.access.renameWorkspace.handler(async ({ input, context }) => {
  const request = requireWorkspaceChange(context, input);
  const result = await renameWorkspaceService(context.platform.database.db, context.platform, request);
  return toWorkspace(valueOrRpcError(result));
});
