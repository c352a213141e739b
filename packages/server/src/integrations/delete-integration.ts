import { and, eq } from "drizzle-orm";
import type { ProjectChange } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { integrations } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { missingIntegrationMessage, recordIntegrationEvent } from "./integration-record.ts";

/** Deletes an integration and its sealed secrets. */
export async function deleteIntegration(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  request: ProjectChange & { name: string },
): Promise<ServiceResult<{ name: string }>> {
  return db.transaction(async (tx) => {
    const [deleted] = await tx
      .delete(integrations)
      .where(and(eq(integrations.projectId, request.projectId), eq(integrations.name, request.name)))
      .returning({ name: integrations.name, kind: integrations.kind });
    if (deleted === undefined) return fail.notFound({ message: missingIntegrationMessage(request.name) });
    await recordIntegrationEvent(tx, deps, { ...request, action: "integration.deleted", data: { kind: deleted.kind } });
    return ok({ name: deleted.name });
  });
}
