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
  return fetchKeysetPage({
    request: input.page,
    selectSlice: (slice) =>
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
        .where(and(eq(memberships.workspaceId, input.workspaceId), cursorCondition(memberships.accountId, slice)))
        .orderBy(sliceOrder(memberships.accountId, slice))
        .limit(slice.limit),
  });
}
