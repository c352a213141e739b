import { and, eq, getTableColumns } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import {
  cursorCondition,
  fetchKeysetPage,
  type KeysetPage,
  matchingCount,
  type PageRequest,
  sliceOrder,
} from "../db/keyset-page.ts";
import { integrations } from "../db/schema/index.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { type IntegrationRecord, missingIntegrationMessage } from "./integration-record.ts";

/** One page of a project's integrations, by name (unique within a project). */
export async function listIntegrations(
  db: Database,
  request: { projectId: string; page: PageRequest },
): Promise<KeysetPage<IntegrationRecord>> {
  return fetchKeysetPage({
    request: request.page,
    selectSlice: (slice) =>
      db
        .select({ row: getTableColumns(integrations), matchingCount: matchingCount() })
        .from(integrations)
        .where(and(eq(integrations.projectId, request.projectId), cursorCondition(integrations.name, slice)))
        .orderBy(sliceOrder(integrations.name, slice))
        .limit(slice.limit),
  });
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
