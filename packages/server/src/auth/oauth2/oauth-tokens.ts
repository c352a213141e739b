import type { Scope } from "@weft/contract";
import { eq } from "drizzle-orm";
import type { Transaction } from "../../db/database.ts";
import { oauthRefreshTokens, registrations } from "../../db/schema/index.ts";
import type { CredentialRevocations } from "../../identity/credential-revocations.ts";
import { credentialLifetimeMs, issueCredential } from "../../identity/credentials.ts";
import type { Clock } from "../../shared/clock.ts";
import type { IdGenerator } from "../../shared/ids.ts";
import { generateToken, hashSecret } from "../../shared/secrets.ts";
import type { ClientMetadataDocuments } from "./client-metadata-documents.ts";

/** An access token is a Weft credential that lives an hour; the client refreshes it (docs/decisions/0072-oauth-for-mcp-clients.md). */
export const accessTokenLifetimeMs = 60 * 60 * 1000;
/** A refresh token lives as long as a credential would; each use rotates it. */
export const refreshTokenLifetimeMs = credentialLifetimeMs;

/** What the services that redeem, rotate and revoke OAuth tokens need: clients are found through `documents`. */
export type OAuthTokenDeps = {
  clock: Clock;
  ids: IdGenerator;
  credentialRevocations: CredentialRevocations;
  documents: ClientMetadataDocuments;
};

export interface OAuthTokens {
  accessToken: string;
  credentialId: string;
  expiresAt: Date;
  refreshToken: string;
  scopes: Scope[];
}

/**
 * Issues an access token (a credential of the registration, which becomes the agent's current
 * credential) and the next refresh token of the registration's family.
 */
export async function issueOAuthTokens(
  tx: Transaction,
  deps: { clock: Clock; ids: IdGenerator },
  grant: { accountId: string; registrationId: string; clientId: string; scopes: Scope[] },
): Promise<OAuthTokens> {
  const now = deps.clock.now();
  const issued = await issueCredential(tx, deps, {
    accountId: grant.accountId,
    scopes: grant.scopes,
    registrationId: grant.registrationId,
    expiresAt: new Date(now.getTime() + accessTokenLifetimeMs),
  });
  await tx
    .update(registrations)
    .set({ credentialId: issued.credentialId, scopes: grant.scopes })
    .where(eq(registrations.id, grant.registrationId));
  const refreshToken = generateToken("wrt");
  await tx.insert(oauthRefreshTokens).values({
    tokenHash: hashSecret(refreshToken),
    registrationId: grant.registrationId,
    clientId: grant.clientId,
    scopes: grant.scopes,
    createdAt: now,
    expiresAt: new Date(now.getTime() + refreshTokenLifetimeMs),
  });
  return {
    accessToken: issued.credential,
    credentialId: issued.credentialId,
    expiresAt: issued.expiresAt,
    refreshToken,
    scopes: grant.scopes,
  };
}
