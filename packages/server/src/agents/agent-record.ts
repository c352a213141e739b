import { and, gt, isNotNull, isNull, lte, type SQL } from "drizzle-orm";
import { type AgentClient, accounts, credentials, type RegistrationType, registrations } from "../db/schema/index.ts";

export const agentStatuses = ["active", "revoked", "expired"] as const;
export type AgentStatus = (typeof agentStatuses)[number];

/** One registration and the credential it holds. */
export interface Agent {
  /** The registration id. */
  id: string;
  type: RegistrationType;
  accountId: string;
  email: string;
  agent: AgentClient;
  federation: AgentFederation | null;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date;
  status: AgentStatus;
  credentialId: string;
}

/** Where a federated agent's credential came from and what it may see. */
export interface AgentFederation {
  policyId: string;
  projectId: string;
  subject: string;
}

/** The columns an agent is read from: a registration joined to its credential and account. */
export const agentColumns = {
  id: registrations.id,
  type: registrations.type,
  accountId: credentials.accountId,
  email: accounts.email,
  clientId: registrations.clientId,
  issuer: registrations.issuer,
  userAgent: registrations.agentDescription,
  policyId: registrations.policyId,
  projectId: registrations.projectId,
  subject: registrations.subject,
  scopes: credentials.scopes,
  createdAt: registrations.createdAt,
  lastUsedAt: credentials.lastUsedAt,
  expiresAt: credentials.expiresAt,
  revokedAt: credentials.revokedAt,
  credentialId: credentials.id,
};

export interface AgentRow {
  id: string;
  type: RegistrationType;
  accountId: string;
  email: string;
  clientId: string | null;
  issuer: string | null;
  userAgent: string | null;
  policyId: string | null;
  projectId: string | null;
  subject: string | null;
  scopes: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date;
  revokedAt: Date | null;
  credentialId: string;
}

export function toAgent(row: AgentRow, now: Date): Agent {
  const status: AgentStatus =
    row.revokedAt !== null ? "revoked" : row.expiresAt.getTime() <= now.getTime() ? "expired" : "active";
  return {
    id: row.id,
    type: row.type,
    accountId: row.accountId,
    email: row.email,
    agent: agentClientOf(row),
    federation:
      row.type === "federated" && row.policyId !== null && row.projectId !== null && row.subject !== null
        ? { policyId: row.policyId, projectId: row.projectId, subject: row.subject }
        : null,
    scopes: row.scopes,
    createdAt: row.createdAt,
    lastUsedAt: row.lastUsedAt,
    expiresAt: row.expiresAt,
    status,
    credentialId: row.credentialId,
  };
}

/**
 * The client as an agent's type describes it: an ID-JAG client of its issuer, a federated token's
 * issuer, an OAuth client's id and name, or the User-Agent an email registration sent.
 */
export function agentClientOf(row: {
  type: RegistrationType;
  clientId: string | null;
  issuer: string | null;
  userAgent: string | null;
}): AgentClient {
  switch (row.type) {
    case "agent-provider":
      return { clientId: row.clientId, issuer: row.issuer, userAgent: null };
    case "federated":
      return { clientId: null, issuer: row.issuer, userAgent: null };
    case "email-verification":
      return { clientId: null, issuer: null, userAgent: row.userAgent };
    case "oauth-client":
      return { clientId: row.clientId, issuer: null, userAgent: row.userAgent };
  }
}

/** The condition for agents in one status at `now`. */
export function statusCondition(status: AgentStatus, now: Date): SQL | undefined {
  switch (status) {
    case "active":
      return and(isNull(credentials.revokedAt), gt(credentials.expiresAt, now));
    case "revoked":
      return isNotNull(credentials.revokedAt);
    case "expired":
      return and(isNull(credentials.revokedAt), lte(credentials.expiresAt, now));
  }
}
