import { and, eq } from "drizzle-orm";
import { type AuditActor, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { integrations } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { missingIntegrationMessage } from "./integration-record.ts";

/** Deletes an integration and its sealed secrets. */
export async function deleteIntegration(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  request: { projectId: string; workspaceId: string; name: string; actor: AuditActor },
): Promise<ServiceResult<{ name: string }>> {
  return db.transaction(async (tx) => {
    const [deleted] = await tx
      .delete(integrations)
      .where(and(eq(integrations.projectId, request.projectId), eq(integrations.name, request.name)))
      .returning({ name: integrations.name, kind: integrations.kind });
    if (deleted === undefined) return fail.notFound({ message: missingIntegrationMessage(request.name) });
    await recordAuditEvent(tx, deps, {
      action: "integration.deleted",
      targetType: "integration",
      targetId: `${request.projectId}/${request.name}`,
      workspaceId: request.workspaceId,
      actor: request.actor,
      data: { projectId: request.projectId, name: deleted.name, kind: deleted.kind },
    });
    return ok({ name: deleted.name });
  });
}
