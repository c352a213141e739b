import { and, eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import {
  cursorCondition,
  fetchKeysetPage,
  type KeysetPage,
  matchingCount,
  type PageRequest,
  sliceOrder,
} from "../db/keyset-page.ts";
import { federationPolicies } from "../db/schema/index.ts";
import { type FederationPolicyRecord, toFederationPolicyRecord } from "./federation-policy-record.ts";

/** One page of a workspace's federation policies (of one project, with `projectId`), oldest first. */
export function listFederationPolicies(
  db: Database,
  input: { workspaceId: string; projectId?: string | undefined; page: PageRequest },
): Promise<KeysetPage<FederationPolicyRecord>> {
  return fetchKeysetPage({
    request: input.page,
    selectSlice: async (slice) => {
      const rows = await db
        .select({ row: federationPolicies, matchingCount: matchingCount() })
        .from(federationPolicies)
        .where(
          and(
            eq(federationPolicies.workspaceId, input.workspaceId),
            input.projectId === undefined ? undefined : eq(federationPolicies.projectId, input.projectId),
            cursorCondition(federationPolicies.id, slice),
          ),
        )
        .orderBy(sliceOrder(federationPolicies.id, slice))
        .limit(slice.limit);
      return rows.map(({ row, matchingCount }) => ({ row: toFederationPolicyRecord(row), matchingCount }));
    },
  });
}
