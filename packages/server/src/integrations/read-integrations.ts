import { and, eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { fetchProjectRowsByName, type KeysetPage, type ProjectRowsRequest } from "../db/keyset-page.ts";
import { integrations } from "../db/schema/index.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { type IntegrationRecord, missingIntegrationMessage } from "./integration-record.ts";

/** One page of a project's integrations, by name (unique within a project). */
export function listIntegrations(db: Database, request: ProjectRowsRequest): Promise<KeysetPage<IntegrationRecord>> {
  return fetchProjectRowsByName(db, integrations, request);
}

export async function readIntegration(
  db: Database,
  request: { projectId: string; name: string },
): Promise<ServiceResult<IntegrationRecord>> {
  const [row] = await db
    .select()
    .from(integrations)
    .where(and(eq(integrations.projectId, request.projectId), eq(integrations.name, request.name)));
  return row === undefined ? fail.notFound({ message: missingIntegrationMessage(request.name) }) : ok(row);
}
