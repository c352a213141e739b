import type { Database, Transaction } from "../db/database.ts";
import { type AgentClient, type ApiSurface, auditEvents } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";

/**
 * Who made a change: the account, and the credential it acted through when there was one, with the
 * agent (registration and client) that holds that credential, so the log tells agents apart.
 */
export interface AuditActor {
  accountId?: string | undefined;
  email?: string | undefined;
  credentialId?: string | undefined;
  agentId?: string | undefined;
  agent?: AgentClient | undefined;
  /** The API surface the change was asked through, when it came through the API. */
  via?: ApiSurface | undefined;
}

/** Who changes something of which workspace, for services whose audit event is optional (API calls only). */
export interface AuditedChange {
  actor: AuditActor;
  workspaceId: string;
}

/** Who changes something of a project, and the project's workspace, which the audit event goes to. */
export interface ProjectChange extends AuditedChange {
  projectId: string;
}

export interface AuditEventInput {
  action: string;
  targetType: string;
  targetId: string;
  workspaceId?: string | undefined;
  actor?: AuditActor | undefined;
  /** Context for a reader; never a secret. */
  data?: Record<string, unknown> | undefined;
}

export interface AuditDependencies {
  clock: Clock;
  ids: IdGenerator;
}

/** Appends one audit event, inside the caller's transaction so it commits with the change it describes. */
export async function recordAuditEvent(
  db: Database | Transaction,
  deps: AuditDependencies,
  event: AuditEventInput,
): Promise<string> {
  const row = auditRow(deps, event);
  await db.insert(auditEvents).values(row);
  return row.id;
}

/** Appends audit events in one insert, inside the caller's transaction (a batch of the platform's own doings). */
export async function recordAuditEvents(
  db: Database | Transaction,
  deps: AuditDependencies,
  events: readonly AuditEventInput[],
): Promise<void> {
  if (events.length === 0) return;
  await db.insert(auditEvents).values(events.map((event) => auditRow(deps, event)));
}

function auditRow(deps: AuditDependencies, event: AuditEventInput) {
  return {
    id: deps.ids("auditEvent"),
    action: event.action,
    targetType: event.targetType,
    targetId: event.targetId,
    workspaceId: event.workspaceId ?? null,
    actorAccountId: event.actor?.accountId ?? null,
    actorEmail: event.actor?.email ?? null,
    actorCredentialId: event.actor?.credentialId ?? null,
    actorAgentId: event.actor?.agentId ?? null,
    actorAgent: event.actor?.agent ?? null,
    actorVia: event.actor?.via ?? null,
    data: event.data ?? null,
    createdAt: deps.clock.now(),
  };
}
