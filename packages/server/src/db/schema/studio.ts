import { index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { accounts, credentials } from "./identity.ts";

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

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
    credentialId: text("credential_id")
      .notNull()
      .references(() => credentials.id, { onDelete: "cascade" }),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    createdAt: timestamptz("created_at").notNull(),
    lastActiveAt: timestamptz("last_active_at").notNull(),
  },
  (table) => [uniqueIndex().on(table.tokenHash), index().on(table.credentialId)],
);

/** A one-time link that signs a browser in to Studio as `accountId`; only the token's digest is kept. */
export const studioSignInLinks = pgTable("studio_sign_in_links", {
  tokenHash: text("token_hash").primaryKey(),
  accountId: text("account_id")
    .notNull()
    .references(() => accounts.id, { onDelete: "cascade" }),
  createdAt: timestamptz("created_at").notNull(),
  expiresAt: timestamptz("expires_at").notNull(),
  usedAt: timestamptz("used_at"),
});
