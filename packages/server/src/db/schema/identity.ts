import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { ownedBy, timestamptz } from "./columns.ts";

/** A person, identified by a verified email address (stored lower-cased). */
export const accounts = pgTable("accounts", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  createdAt: timestamptz("created_at").notNull(),
});

/** An organization that owns projects. Every account gets a personal one. */
export const workspaces = pgTable(
  "workspaces",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    personalAccountId: text("personal_account_id")
      .unique()
      .references(() => accounts.id),
    /**
     * The account that pays for the workspace: its person's for a personal one, its creator's for a
     * team one. A worker's share holds per such account, and its plan (its personal workspace's)
     * caps how many workspaces it pays for.
     */
    billingAccountId: text("billing_account_id")
      .notNull()
      .references(() => accounts.id),
    /** The plan the operator assigned (`weft server set-plan`); null means WEFT_DEFAULT_PLAN. */
    plan: text("plan"),
    createdAt: timestamptz("created_at").notNull(),
  },
  (table) => [index().on(table.billingAccountId)],
);

export const workspaceRoles = ["owner", "admin", "member", "viewer"] as const;
export type WorkspaceRole = (typeof workspaceRoles)[number];

export const memberships = pgTable(
  "memberships",
  {
    workspaceId: ownedBy("workspace_id", () => workspaces.id),
    accountId: ownedBy("account_id", () => accounts.id),
    role: text("role", { enum: workspaceRoles }).notNull(),
    createdAt: timestamptz("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.workspaceId, table.accountId] }), index().on(table.accountId)],
);

/**
 * A bearer credential. Only the SHA-256 of the secret is kept; `issuer`/`subject` record the ID-JAG
 * delegation it came from, so a logout token can revoke every credential of that (iss, sub).
 */
export const credentials = pgTable(
  "credentials",
  {
    id: text("id").primaryKey(),
    secretHash: text("secret_hash").notNull(),
    accountId: ownedBy("account_id", () => accounts.id),
    registrationId: text("registration_id"),
    scopes: text("scopes").array().notNull(),
    issuer: text("issuer"),
    subject: text("subject"),
    createdAt: timestamptz("created_at").notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    revokedAt: timestamptz("revoked_at"),
    /** Written in batches, not per request: accurate to the flush interval (docs/decisions/0032-last-used-at-written-in-batches.md). */
    lastUsedAt: timestamptz("last_used_at"),
  },
  (table) => [
    uniqueIndex().on(table.secretHash),
    index().on(table.issuer, table.subject).where(sql`${table.issuer} is not null`),
    index().on(table.accountId),
  ],
);

/** The client an agent registered with: its ID-JAG client and issuer, or the User-Agent it sent. */
/** The surfaces over which the procedures answer: oRPC's protocol, plain JSON, and MCP tools. */
export type ApiSurface = "rpc" | "api" | "mcp";

export interface AgentClient {
  clientId: string | null;
  issuer: string | null;
  userAgent: string | null;
}

/**
 * Append-only record of every state change that matters to an administrator. The actor is copied
 * in (email, agent) rather than joined, so the log still says who it was after they are gone.
 */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id"),
    actorAccountId: text("actor_account_id"),
    actorEmail: text("actor_email"),
    actorCredentialId: text("actor_credential_id"),
    /** The registration the actor's credential came from. */
    actorAgentId: text("actor_agent_id"),
    actorAgent: jsonb("actor_agent").$type<AgentClient>(),
    /** The API surface the actor's call came through (`rpc`, `api`, `mcp`); null for pages and ingress. */
    actorVia: text("actor_via").$type<ApiSurface>(),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>(),
    createdAt: timestamptz("created_at").notNull(),
  },
  (table) => [index().on(table.workspaceId, table.id), index().on(table.workspaceId, table.createdAt, table.id)],
);

/**
 * An invitation to join a workspace. Only the digest of its link token is kept; it is pending until
 * accepted, revoked or `expiresAt`.
 */
export const invitations = pgTable(
  "invitations",
  {
    id: text("id").primaryKey(),
    workspaceId: ownedBy("workspace_id", () => workspaces.id),
    email: text("email").notNull(),
    role: text("role", { enum: workspaceRoles }).notNull(),
    tokenHash: text("token_hash").notNull(),
    invitedByAccountId: text("invited_by_account_id").references(() => accounts.id, { onDelete: "set null" }),
    createdAt: timestamptz("created_at").notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    acceptedAt: timestamptz("accepted_at"),
    revokedAt: timestamptz("revoked_at"),
  },
  (table) => [uniqueIndex().on(table.tokenHash), index().on(table.workspaceId, table.id)],
);
