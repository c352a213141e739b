import { eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { fetchSelectKeysetPage, type KeysetPage, matchingCount, type PageRequest } from "../db/keyset-page.ts";
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
  const page = await fetchSelectKeysetPage({
    request: input.page,
    key: invitations.id,
    where: eq(invitations.workspaceId, input.workspaceId),
    select: () => db.select({ row: invitations, matchingCount: matchingCount() }).from(invitations).$dynamic(),
  });
  return { ...page, rows: page.rows.map((row) => toInvitation(row, now)) };
}
