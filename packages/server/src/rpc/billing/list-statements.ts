import { listStatements as listStatementsService } from "../../billing/statements.ts";
import { requireMemberManager } from "../access/require-member-manager.ts";
import { rpc } from "../implementer.ts";
import { toTimestampPageEnvelope, toTimestampPageRequest } from "../pagination.ts";

/** `billing.listStatements`: the workspace's closed monthly statements, newest first. */
export const listStatements = rpc.billing.listStatements.handler(async ({ input, context }) => {
  const page = toTimestampPageRequest(input);
  requireMemberManager(context.principal, input.workspaceId, "read the workspace's statements");
  const result = await listStatementsService(context.platform.database.db, {
    workspaceId: input.workspaceId,
    page,
  });
  return toTimestampPageEnvelope(result, (statement) => statement);
});
