import { bigserial, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { ownedBy, timestamptz } from "./columns.ts";
import { accounts, credentials } from "./identity.ts";

/**
 * A browser signed in to Studio. The cookie holds a session token, stored here only as a digest;
 * the session acts through its credential (an agent "Weft Studio"), so revoking the credential ends
 * the session. `lastActiveAt` slides the idle expiry forward as the session is used.
 */
export const studioSessions = pgTable(
  "studio_sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    credentialId: ownedBy("credential_id", () => credentials.id),
    accountId: ownedBy("account_id", () => accounts.id),
    createdAt: timestamptz("created_at").notNull(),
    lastActiveAt: timestamptz("last_active_at").notNull(),
  },
  (table) => [uniqueIndex().on(table.tokenHash), index().on(table.credentialId)],
);

/** A one-time link that signs a browser in to Studio as `accountId`; only the token's digest is kept. */
export const studioSignInLinks = pgTable("studio_sign_in_links", {
  tokenHash: text("token_hash").primaryKey(),
  accountId: ownedBy("account_id", () => accounts.id),
  createdAt: timestamptz("created_at").notNull(),
  expiresAt: timestamptz("expires_at").notNull(),
  usedAt: timestamptz("used_at"),
});

/** The grains at which ended executions are counted, finest first. */
export const countGrains = ["minute", "hour", "day"] as const;
export type CountGrain = (typeof countGrains)[number];

/**
 * Ended executions (`succeeded`, `failed`, `cancelled`) counted per project, UTC bucket of their
 * creation and final status, at each grain, so that Studio's counts of a range read buckets rather
 * than executions (docs/decisions/0075-studio-queries.md). Kept from `execution_count_deltas` by the
 * workers; no foreign key, so that a roll-up never waits on a project's row (deleting a project
 * removes its counts itself).
 */
export const executionCounts = pgTable(
  "execution_counts",
  {
    projectId: text("project_id").notNull(),
    grain: text("grain", { enum: countGrains }).notNull(),
    start: timestamptz("start").notNull(),
    status: text("status").notNull(),
    n: integer("n").notNull(),
  },
  (table) => [primaryKey({ columns: [table.projectId, table.grain, table.start, table.status] })],
);

/**
 * Changes to `execution_counts` not yet rolled up: +1 appended by the statement that ends an
 * execution, -n per bucket when ended executions are deleted (retention). Appending takes no lock
 * another commit waits on; the roll-up folds them at every grain.
 */
export const executionCountDeltas = pgTable(
  "execution_count_deltas",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    projectId: text("project_id").notNull(),
    minute: timestamptz("minute").notNull(),
    status: text("status").notNull(),
    n: integer("n").notNull(),
  },
  (table) => [index().on(table.projectId, table.minute)],
);
