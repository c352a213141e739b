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
import { memberships, workspaces } from "../db/schema/index.ts";
import type { WorkspaceOfMember } from "./workspace-of-member.ts";

/** One page of the workspaces an account belongs to, oldest first, with its role in each. */
export function listWorkspaces(
  db: Database,
  input: { accountId: string; page: PageRequest },
): Promise<KeysetPage<WorkspaceOfMember>> {
  return fetchKeysetPage({
    request: input.page,
    selectSlice: async (slice) => {
      const rows = await db
        .select({
          id: workspaces.id,
          name: workspaces.name,
          role: memberships.role,
          personalAccountId: workspaces.personalAccountId,
          createdAt: workspaces.createdAt,
          matchingCount: matchingCount(),
        })
        .from(memberships)
        .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
        .where(and(eq(memberships.accountId, input.accountId), cursorCondition(workspaces.id, slice)))
        .orderBy(sliceOrder(workspaces.id, slice))
        .limit(slice.limit);
      return rows.map(({ matchingCount, personalAccountId, ...row }) => ({
        row: { ...row, personal: personalAccountId !== null },
        matchingCount,
      }));
    },
  });
}
