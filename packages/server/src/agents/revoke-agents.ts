import { and, eq, inArray, ne, type SQL } from "drizzle-orm";
import { type AuditActor, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { credentials, memberships, workspaces } from "../db/schema/index.ts";
import { revokeWhere } from "../identity/credentials.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { ok, type ServiceResult } from "../shared/service-result.ts";
import type { Agent } from "./agent-record.ts";
import { findVisibleAgent } from "./get-agent.ts";

type Actor = AuditActor & { accountId: string; credentialId: string };

/**
 * Revokes one agent's credential: the caller's own, or a member's of a workspace the caller
 * manages. Returns the revoked credential ids for the caller to announce after commit.
 */
export async function revokeAgent(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  input: { agentId: string; actor: Actor },
): Promise<ServiceResult<{ agent: Agent; revokedCredentialIds: string[] }>> {
  return db.transaction(async (tx) => {
    const visible = await findVisibleAgent(tx, deps, { agentId: input.agentId, actorAccountId: input.actor.accountId });
    if (!visible.ok) return visible;
    const { agent, viaWorkspaceId } = visible.value;
    const revokedCredentialIds = await revokeWhere(
      tx,
      deps,
      eq(credentials.id, agent.credentialId),
      "agent revoked",
      input.actor,
    );
    const [personal] = await tx
      .select({ id: workspaces.id })
      .from(workspaces)
      .where(eq(workspaces.personalAccountId, agent.accountId));
    await recordAuditEvent(tx, deps, {
      action: "agent.revoked",
      targetType: "agent",
      targetId: agent.id,
      workspaceId: viaWorkspaceId ?? personal?.id,
      actor: input.actor,
      data: { accountId: agent.accountId, credentialId: agent.credentialId },
    });
    const status = revokedCredentialIds.length > 0 ? "revoked" : agent.status;
    return ok({ agent: { ...agent, status }, revokedCredentialIds });
  });
}

/**
 * Incident response: revokes every active credential of every member of a workspace, except the one
 * making the call, so whoever responds keeps working. Only owners and admins; the caller checks.
 */
export async function revokeAllAgents(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  input: { workspaceId: string; actor: Actor },
): Promise<ServiceResult<{ revokedCredentialIds: string[] }>> {
  return db.transaction(async (tx) => {
    const members = tx
      .select({ accountId: memberships.accountId })
      .from(memberships)
      .where(eq(memberships.workspaceId, input.workspaceId));
    const revokedCredentialIds = await revokeWhere(
      tx,
      deps,
      and(inArray(credentials.accountId, members), ne(credentials.id, input.actor.credentialId)) as SQL,
      "all agents of the workspace revoked",
      input.actor,
    );
    await recordAuditEvent(tx, deps, {
      action: "agent.revoked_all",
      targetType: "workspace",
      targetId: input.workspaceId,
      workspaceId: input.workspaceId,
      actor: input.actor,
      data: { count: revokedCredentialIds.length },
    });
    return ok({ revokedCredentialIds });
  });
}
