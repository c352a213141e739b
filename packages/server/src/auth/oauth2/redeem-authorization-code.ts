import type { Scope } from "@weft/contract";
import { and, eq, isNull } from "drizzle-orm";
import { recordAuditEvent } from "../../audit/record-audit-event.ts";
import type { Database } from "../../db/database.ts";
import { oauthAuthorizationCodes, registrations } from "../../db/schema/index.ts";
import type { CredentialRevocations } from "../../identity/credential-revocations.ts";
import type { Clock } from "../../shared/clock.ts";
import type { IdGenerator } from "../../shared/ids.ts";
import { hashSecret } from "../../shared/secrets.ts";
import { type AuthResult, refuse } from "../auth-error.ts";
import type { ClientMetadataDocuments } from "./client-metadata-documents.ts";
import { findClient } from "./clients.ts";
import { issueOAuthTokens, type OAuthTokens } from "./oauth-tokens.ts";
import { verifierMatchesChallenge } from "./pkce.ts";
import { revokeTokenFamily } from "./token-family.ts";

export interface CodeRedemption {
  code: string;
  clientId: string;
  redirectUri: string;
  codeVerifier: string;
}

type Deps = {
  clock: Clock;
  ids: IdGenerator;
  credentialRevocations: CredentialRevocations;
  documents: ClientMetadataDocuments;
};

const invalidCode = () =>
  refuse("invalid_grant", "The authorization code is wrong, expired, already used, or was issued to another client.");

/**
 * Exchanges an authorization code for tokens, once: the code is spent by the first attempt,
 * whatever its outcome, so a failed PKCE check cannot be retried. A code presented again after it
 * was redeemed revokes what it was redeemed for.
 */
export async function redeemAuthorizationCode(
  db: Database,
  deps: Deps,
  presented: CodeRedemption,
): Promise<AuthResult<OAuthTokens>> {
  const client = await findClient(db, deps.documents, presented.clientId);
  if (client === undefined) return refuse("invalid_client", "client_id names no registered client.");
  const now = deps.clock.now();
  const codeHash = hashSecret(presented.code);
  const outcome = await db.transaction(async (tx): Promise<AuthResult<OAuthTokens> | { reused: string[] }> => {
    const [spent] = await tx
      .update(oauthAuthorizationCodes)
      .set({ usedAt: now })
      .where(and(eq(oauthAuthorizationCodes.codeHash, codeHash), isNull(oauthAuthorizationCodes.usedAt)))
      .returning();
    if (spent === undefined) {
      const [used] = await tx
        .select({ registrationId: oauthAuthorizationCodes.registrationId })
        .from(oauthAuthorizationCodes)
        .where(eq(oauthAuthorizationCodes.codeHash, codeHash));
      if (used === undefined) return invalidCode();
      return { reused: await revokeTokenFamily(tx, deps, used.registrationId, "authorization code reused") };
    }
    if (now.getTime() >= spent.expiresAt.getTime() || spent.clientId !== client.clientId) return invalidCode();
    if (spent.redirectUri !== presented.redirectUri) {
      return refuse("invalid_grant", "redirect_uri differs from the one of the authorization request.");
    }
    if (!verifierMatchesChallenge(presented.codeVerifier, spent.codeChallenge)) {
      return refuse("invalid_request", "code_verifier does not match the code_challenge (PKCE S256).");
    }
    const [registration] = await tx
      .update(registrations)
      .set({ status: "claimed" })
      .where(and(eq(registrations.id, spent.registrationId), eq(registrations.status, "approved")))
      .returning();
    if (registration === undefined || registration.accountId === null) return invalidCode();
    const tokens = await issueOAuthTokens(tx, deps, {
      accountId: registration.accountId,
      registrationId: registration.id,
      clientId: client.clientId,
      scopes: spent.scopes as Scope[],
    });
    await recordAuditEvent(tx, deps, {
      action: "registration.claimed",
      targetType: "registration",
      targetId: registration.id,
      actor: {
        accountId: registration.accountId,
        email: registration.email,
        credentialId: tokens.credentialId,
        agentId: registration.id,
        agent: { clientId: client.clientId, issuer: null, userAgent: registration.agentDescription },
      },
      data: { credentialId: tokens.credentialId, grant: "authorization_code" },
    });
    return { ok: true, value: tokens };
  });
  if ("reused" in outcome) {
    deps.credentialRevocations.publish(outcome.reused);
    return refuse("invalid_grant", "The authorization code was already used; what it was exchanged for is revoked.");
  }
  return outcome;
}
