import type { Agent } from "@weft/contract";
import type { Agent as AgentRecord } from "../../agents/agent-record.ts";

/** The wire shape of an agent; the credential id stays inside. */
export function toAgent(record: AgentRecord): Agent {
  return {
    id: record.id,
    type: record.type,
    accountId: record.accountId,
    email: record.email,
    agent: record.agent,
    federation: record.federation,
    scopes: record.scopes,
    createdAt: record.createdAt.toISOString(),
    lastUsedAt: record.lastUsedAt === null ? null : record.lastUsedAt.toISOString(),
    expiresAt: record.expiresAt.toISOString(),
    status: record.status,
  };
}
