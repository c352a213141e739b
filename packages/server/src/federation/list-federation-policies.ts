import { and, eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { fetchTableKeysetPage, type KeysetPage, type PageRequest } from "../db/keyset-page.ts";
import { federationPolicies } from "../db/schema/index.ts";
import { type FederationPolicyRecord, toFederationPolicyRecord } from "./federation-policy-record.ts";

/** One page of a workspace's federation policies (of one project, with `projectId`), oldest first. */
export async function listFederationPolicies(
  db: Database,
  input: { workspaceId: string; projectId?: string | undefined; page: PageRequest },
): Promise<KeysetPage<FederationPolicyRecord>> {
  const page = await fetchTableKeysetPage(db, {
    table: federationPolicies,
    key: federationPolicies.id,
    where: and(
      eq(federationPolicies.workspaceId, input.workspaceId),
      input.projectId === undefined ? undefined : eq(federationPolicies.projectId, input.projectId),
    ),
    request: input.page,
  });
  return { ...page, rows: page.rows.map(toFederationPolicyRecord) };
}
