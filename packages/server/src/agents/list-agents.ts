import { and, eq, inArray } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import {
  cursorCondition,
  fetchKeysetPage,
  type KeysetPage,
  matchingCount,
  type PageRequest,
  sliceOrder,
} from "../db/keyset-page.ts";
import { accounts, credentials, memberships, registrations } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import { type Agent, type AgentStatus, agentColumns, statusCondition, toAgent } from "./agent-record.ts";

/**
 * One page of agents, oldest first: those of one account, or (`workspaceId`) of every member of a
 * workspace. Who may ask for which is the caller's decision.
 */
export function listAgents(
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
  return fetchKeysetPage({
    request: input.page,
    selectSlice: async (slice) => {
      const rows = await db
        .select({ ...agentColumns, matchingCount: matchingCount() })
        .from(registrations)
        .innerJoin(credentials, eq(credentials.id, registrations.credentialId))
        .innerJoin(accounts, eq(accounts.id, credentials.accountId))
        .where(
          and(
            owners,
            input.status === undefined ? undefined : statusCondition(input.status, now),
            cursorCondition(registrations.id, slice),
          ),
        )
        .orderBy(sliceOrder(registrations.id, slice))
        .limit(slice.limit);
      return rows.map(({ matchingCount, ...row }) => ({ row: toAgent(row, now), matchingCount }));
    },
  });
}
