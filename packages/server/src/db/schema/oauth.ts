import { index, pgTable, text } from "drizzle-orm/pg-core";
import { timestamptz } from "./columns.ts";

/** A public OAuth client (RFC 7591 dynamic registration): no secret, only its redirect URIs. */
export const oauthClients = pgTable("oauth_clients", {
  id: text("id").primaryKey(),
  clientName: text("client_name"),
  redirectUris: text("redirect_uris").array().notNull(),
  createdAt: timestamptz("created_at").notNull(),
});

/**
 * An authorization code, stored only as a digest, bound to its client, redirect URI, PKCE challenge
 * and the sign-in registration it was granted from. `usedAt` makes it single use.
 */
export const oauthAuthorizationCodes = pgTable(
  "oauth_authorization_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    clientId: text("client_id").notNull(),
    registrationId: text("registration_id").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    scopes: text("scopes").array().notNull(),
    createdAt: timestamptz("created_at").notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    usedAt: timestamptz("used_at"),
  },
  (table) => [index().on(table.expiresAt)],
);

/**
 * A refresh token, stored only as a digest. Every token of one registration is one family: using a
 * token marks it used and issues the next; presenting a used one revokes the family.
 */
export const oauthRefreshTokens = pgTable(
  "oauth_refresh_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    registrationId: text("registration_id").notNull(),
    clientId: text("client_id").notNull(),
    scopes: text("scopes").array().notNull(),
    createdAt: timestamptz("created_at").notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    usedAt: timestamptz("used_at"),
  },
  (table) => [index().on(table.registrationId)],
);
