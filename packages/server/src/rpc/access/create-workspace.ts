import { createWorkspace as createWorkspaceService } from "../../access/create-workspace.ts";
import { rpc } from "../implementer.ts";
import { actorOf } from "../project-access.ts";
import { valueOrRpcError } from "../service-failure.ts";
import { toWorkspace } from "./to-access-records.ts";

/** `access.createWorkspace`: a team workspace with the caller as owner. */
export const createWorkspace = rpc.access.createWorkspace.handler(async ({ input, context }) => {
  const result = await createWorkspaceService(context.platform.database.db, context.platform, {
    name: input.name,
    actor: actorOf(context),
  });
  const workspace = valueOrRpcError(result);
  context.platform.membershipChanges.publish([context.principal.accountId]);
  return toWorkspace(workspace);
});
