import { eq } from "drizzle-orm";
import type { Database, Transaction } from "../db/database.ts";
import { accounts, credentials, registrations } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { managingWorkspace } from "./agent-authority.ts";
import { type Agent, agentColumns, toAgent } from "./agent-record.ts";

/**
 * An agent the caller may see: their own, or one of a member of a workspace they manage, with that
 * workspace (undefined for their own). Anyone else's is NOT_FOUND, like one that does not exist.
 */
export async function findVisibleAgent(
  db: Database | Transaction,
  deps: { clock: Clock },
  input: { agentId: string; actorAccountId: string },
): Promise<ServiceResult<{ agent: Agent; viaWorkspaceId: string | undefined }>> {
  const [row] = await db
    .select(agentColumns)
    .from(registrations)
    .innerJoin(credentials, eq(credentials.id, registrations.credentialId))
    .innerJoin(accounts, eq(accounts.id, credentials.accountId))
    .where(eq(registrations.id, input.agentId));
  if (row === undefined) return fail.notFound("agent");
  const agent = toAgent(row, deps.clock.now());
  if (agent.accountId === input.actorAccountId) return ok({ agent, viaWorkspaceId: undefined });
  const viaWorkspaceId = await managingWorkspace(db, input.actorAccountId, agent.accountId);
  return viaWorkspaceId === undefined ? fail.notFound("agent") : ok({ agent, viaWorkspaceId });
}
