import { listWorkspaces as listWorkspacesService } from "../../access/list-workspaces.ts";
import { rpc } from "../implementer.ts";
import { toPageEnvelope, toPageRequest } from "../pagination.ts";
import { toWorkspace } from "./to-access-records.ts";

/** `access.listWorkspaces`: the caller's workspaces, with the caller's role in each. */
export const listWorkspaces = rpc.access.listWorkspaces.handler(async ({ input, context }) => {
  const page = toPageRequest(input.pagination);
  const result = await listWorkspacesService(context.platform.database.db, {
    accountId: context.principal.accountId,
    page,
  });
  return toPageEnvelope(result, toWorkspace);
});
