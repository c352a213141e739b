import { eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { fetchSelectKeysetPage, type KeysetPage, matchingCount, type PageRequest } from "../db/keyset-page.ts";
import { memberships, workspaces } from "../db/schema/index.ts";
import type { WorkspaceOfMember } from "./workspace-of-member.ts";

/** One page of the workspaces an account belongs to, oldest first, with its role in each. */
export async function listWorkspaces(
  db: Database,
  input: { accountId: string; page: PageRequest },
): Promise<KeysetPage<WorkspaceOfMember>> {
  const page = await fetchSelectKeysetPage({
    request: input.page,
    key: workspaces.id,
    where: eq(memberships.accountId, input.accountId),
    select: () =>
      db
        .select({
          row: {
            id: workspaces.id,
            name: workspaces.name,
            role: memberships.role,
            personalAccountId: workspaces.personalAccountId,
            createdAt: workspaces.createdAt,
          },
          matchingCount: matchingCount(),
        })
        .from(memberships)
        .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
        .$dynamic(),
  });
  return {
    ...page,
    rows: page.rows.map(({ personalAccountId, ...row }) => ({ ...row, personal: personalAccountId !== null })),
  };
}
