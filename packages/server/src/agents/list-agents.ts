import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { fetchSelectKeysetPage, type KeysetPage, matchingCount, type PageRequest } from "../db/keyset-page.ts";
import { accounts, credentials, memberships, registrations } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import { type Agent, type AgentStatus, agentColumns, statusCondition, toAgent } from "./agent-record.ts";

/**
 * One page of agents, oldest first: those of one account, or (`workspaceId`) of every member of a
 * workspace. Who may ask for which is the caller's decision.
 */
export async function listAgents(
  db: Database,
  deps: { clock: Clock },
  input: { of: { accountId: string } | { workspaceId: string }; status?: AgentStatus; page: PageRequest },
): Promise<KeysetPage<Agent>> {
  const now = deps.clock.now();
  const owners =
    "accountId" in input.of
      ? eq(credentials.accountId, input.of.accountId)
      : inArray(
          credentials.accountId,
          db
            .select({ accountId: memberships.accountId })
            .from(memberships)
            .where(eq(memberships.workspaceId, input.of.workspaceId)),
        );
  const page = await fetchSelectKeysetPage({
    request: input.page,
    key: registrations.id,
    where: and(owners, input.status === undefined ? undefined : statusCondition(input.status, now)),
    select: () =>
      db
        .select({ row: agentColumns, matchingCount: matchingCount() })
        .from(registrations)
        .innerJoin(credentials, eq(credentials.id, registrations.credentialId))
        .innerJoin(accounts, eq(accounts.id, credentials.accountId))
        .$dynamic(),
  });
  return { ...page, rows: page.rows.map((row) => toAgent(row, now)) };
}
