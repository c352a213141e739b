import { sql } from "drizzle-orm";
import { index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";

export const registrationTypes = ["agent-provider", "email-verification", "federated", "oauth-client"] as const;
export type RegistrationType = (typeof registrationTypes)[number];

/**
 * Where a registration stands. `issued` is an ID-JAG or federated registration (credential issued at once);
 * an email registration moves `pending` → `approved` → `claimed`, or to `denied` / `revoked`.
 */
export const registrationStatuses = ["issued", "pending", "approved", "denied", "revoked", "claimed"] as const;
export type RegistrationStatus = (typeof registrationStatuses)[number];

/**
 * An agent's request to act for a person. An `oauth-client` registration is a person's sign-in on
 * the authorize page: its claim token is the browser's sign-in cookie, and once a code is redeemed
 * it holds the OAuth client's access token. Approved in another browser than the one holding the
 * cookie, it keeps the digest of the 6-digit code that browser showed until the cookie's browser
 * types it; approved with no code left, that browser is signed in. Every secret of the email flow
 * (claim token, approval link token, 6-digit code) is stored only as a digest.
 */
export const registrations = pgTable(
  "registrations",
  {
    id: text("id").primaryKey(),
    type: text("type", { enum: registrationTypes }).notNull(),
    status: text("status", { enum: registrationStatuses }).notNull(),
    email: text("email").notNull(),
    scopes: text("scopes").array().notNull(),
    /** Who asked, as the agent described itself (its User-Agent); shown to the approving person. */
    agentDescription: text("agent_description"),
    /** The ID-JAG `client_id` of an agent-provider registration, or the OAuth client of an oauth-client one. */
    clientId: text("client_id"),
    /** The authorization request an oauth-client sign-in returns the person to once they approve. */
    returnUrl: text("return_url"),
    /** The federation policy a federated registration's token matched (kept after the policy is deleted). */
    policyId: text("policy_id"),
    /** The project a federated registration's credential is confined to. */
    projectId: text("project_id"),
    accountId: text("account_id"),
    credentialId: text("credential_id"),
    issuer: text("issuer"),
    subject: text("subject"),
    claimTokenHash: text("claim_token_hash"),
    claimTokenExpiresAt: timestamptz("claim_token_expires_at"),
    approvalTokenHash: text("approval_token_hash"),
    codeHash: text("code_hash"),
    codeExpiresAt: timestamptz("code_expires_at"),
    codeAttempts: integer("code_attempts").notNull().default(0),
    createdAt: timestamptz("created_at").notNull(),
    decidedAt: timestamptz("decided_at"),
  },
  (table) => [
    uniqueIndex().on(table.claimTokenHash),
    uniqueIndex().on(table.approvalTokenHash),
    index().on(table.accountId),
    index("registrations_unissued_idx").on(table.createdAt).where(sql`${table.credentialId} is null`),
    index().on(table.policyId),
  ],
);

/**
 * Every `jti` of an accepted ID-JAG or logout token, per issuer, kept until the token could no
 * longer be accepted anyway. Shared by all processes through the database.
 */
export const usedAssertionIds = pgTable(
  "used_assertion_ids",
  {
    issuer: text("issuer").notNull(),
    jti: text("jti").notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.issuer, table.jti] }), index().on(table.expiresAt)],
);

/** Counters of rate-limiter-flexible's Drizzle store, used when several processes share PostgreSQL. */
export const rateLimitCounters = pgTable("rate_limit_counters", {
  key: text("key").primaryKey(),
  points: integer("points").notNull().default(0),
  expire: timestamptz("expire"),
});
