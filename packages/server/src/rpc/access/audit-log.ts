import { readAuditLog } from "../../access/read-audit-log.ts";
import { rpc } from "../implementer.ts";
import { toTimestampPageEnvelope, toTimestampPageRequest } from "../pagination.ts";
import { requireMemberManager } from "./require-member-manager.ts";
import { toAuditEvent } from "./to-access-records.ts";

/** `access.auditLog`: a workspace's audit events, newest first, for its owners and admins. */
export const auditLog = rpc.access.auditLog.handler(async ({ input, context }) => {
  const page = toTimestampPageRequest(input);
  requireMemberManager(context.principal, input.workspaceId, "read the audit log");
  const filter = input.filter ?? {};
  const result = await readAuditLog(context.platform.database.db, {
    workspaceId: input.workspaceId,
    filter: {
      ...filter,
      since: filter.since === undefined ? undefined : new Date(filter.since),
      until: filter.until === undefined ? undefined : new Date(filter.until),
    },
    page,
  });
  return toTimestampPageEnvelope(result, toAuditEvent);
});
