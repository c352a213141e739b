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
import { invitations } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import { type Invitation, toInvitation } from "./invitation-record.ts";

/** One page of a workspace's invitations, oldest first, each with its status now. */
export async function listInvitations(
  db: Database,
  deps: { clock: Clock },
  input: { workspaceId: string; page: PageRequest },
): Promise<KeysetPage<Invitation>> {
  const now = deps.clock.now();
  return fetchKeysetPage({
    request: input.page,
    selectSlice: async (slice) => {
      const rows = await db
        .select({ row: invitations, matchingCount: matchingCount() })
        .from(invitations)
        .where(and(eq(invitations.workspaceId, input.workspaceId), cursorCondition(invitations.id, slice)))
        .orderBy(sliceOrder(invitations.id, slice))
        .limit(slice.limit);
      return rows.map(({ row, matchingCount }) => ({ row: toInvitation(row, now), matchingCount }));
    },
  });
}
