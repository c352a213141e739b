import { eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { fetchSelectKeysetPage, type KeysetPage, matchingCount, type PageRequest } from "../db/keyset-page.ts";
import { accounts, memberships, type WorkspaceRole } from "../db/schema/index.ts";

export interface Member {
  /** The account id, which orders the list (unique within a workspace, time-sortable). */
  id: string;
  email: string;
  role: WorkspaceRole;
  joinedAt: Date;
}

/** One page of a workspace's members, in account order. */
export function listMembers(
  db: Database,
  input: { workspaceId: string; page: PageRequest },
): Promise<KeysetPage<Member>> {
  return fetchSelectKeysetPage({
    request: input.page,
    key: memberships.accountId,
    where: eq(memberships.workspaceId, input.workspaceId),
    select: () =>
      db
        .select({
          row: {
            id: memberships.accountId,
            email: accounts.email,
            role: memberships.role,
            joinedAt: memberships.createdAt,
          },
          matchingCount: matchingCount(),
        })
        .from(memberships)
        .innerJoin(accounts, eq(accounts.id, memberships.accountId))
        .$dynamic(),
  });
}
