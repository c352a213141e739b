import type { Scope } from "@weft/contract";
import { and, eq, gt, isNull } from "drizzle-orm";
import { recordAuditEvent } from "../../audit/record-audit-event.ts";
import type { Database, Transaction } from "../../db/database.ts";
import { oauthAuthorizationCodes, registrations } from "../../db/schema/index.ts";
import { hashSecret } from "../../shared/secrets.ts";
import { type AuthResult, refuse } from "../auth-error.ts";
import { findClient } from "./clients.ts";
import { issueOAuthTokens, type OAuthTokenDeps, type OAuthTokens } from "./oauth-tokens.ts";
import { verifierMatchesChallenge } from "./pkce.ts";
import { authorizationCodeLifetimeMs } from "./sign-in.ts";
import { revokeTokenFamily } from "./token-family.ts";

export interface CodeRedemption {
  code: string;
  clientId: string;
  redirectUri: string;
  /** Absent when the request had none: refused like a wrong one (RFC 7636 §4.6), after the code is spent. */
  codeVerifier: string | undefined;
}

/** Why a code that could not be spent is refused: it expired unspent, or an earlier attempt spent it. */
async function refuseUnspendableCode(
  tx: Transaction,
  deps: OAuthTokenDeps,
  codeHash: string,
): Promise<AuthResult<OAuthTokens> | { reused: string[] }> {
  const [held] = await tx
    .select({
      registrationId: oauthAuthorizationCodes.registrationId,
      usedAt: oauthAuthorizationCodes.usedAt,
      status: registrations.status,
    })
    .from(oauthAuthorizationCodes)
    .leftJoin(registrations, eq(registrations.id, oauthAuthorizationCodes.registrationId))
    .where(eq(oauthAuthorizationCodes.codeHash, codeHash));
  if (held === undefined) return refuse("invalid_grant", "No authorization code of this server matches code.");
  if (held.usedAt === null) {
    return refuse(
      "invalid_grant",
      `The authorization code expired (codes work for ${authorizationCodeLifetimeMs / 1000} s); start a new authorization.`,
    );
  }
  // Only a redemption claims the registration: a code spent by a refused attempt issued nothing.
  if (held.status !== "claimed") {
    return refuse(
      "invalid_grant",
      "The authorization code was already presented in a refused request, which spent it; start a new authorization.",
    );
  }
  return { reused: await revokeTokenFamily(tx, deps, held.registrationId, "authorization code reused") };
}

/**
 * Exchanges an authorization code for tokens, once: the code is spent by the first attempt,
 * whatever its outcome, so a failed PKCE check cannot be retried. A code presented again after it
 * was redeemed revokes what it was redeemed for. An expired code is never spent, so it is refused
 * as expired every time.
 */
export async function redeemAuthorizationCode(
  db: Database,
  deps: OAuthTokenDeps,
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
      .where(
        and(
          eq(oauthAuthorizationCodes.codeHash, codeHash),
          isNull(oauthAuthorizationCodes.usedAt),
          gt(oauthAuthorizationCodes.expiresAt, now),
        ),
      )
      .returning();
    if (spent === undefined) return refuseUnspendableCode(tx, deps, codeHash);
    if (spent.clientId !== client.clientId) {
      return refuse("invalid_grant", "The authorization code was issued to another client.");
    }
    if (spent.redirectUri !== presented.redirectUri) {
      return refuse("invalid_grant", "redirect_uri differs from the one of the authorization request.");
    }
    // RFC 7636 §4.6: a verifier that does not answer the code's challenge is invalid_grant, and so
    // is none at all, since every code here is bound to a challenge. A malformed one (§4.1) never
    // gets here: it is invalid_request, refused before the code is read.
    if (presented.codeVerifier === undefined) {
      return refuse("invalid_grant", "code_verifier is missing; the code was issued for a PKCE code_challenge.");
    }
    if (!verifierMatchesChallenge(presented.codeVerifier, spent.codeChallenge)) {
      return refuse("invalid_grant", "code_verifier does not match the code_challenge (PKCE S256).");
    }
    const [registration] = await tx
      .update(registrations)
      .set({ status: "claimed" })
      .where(and(eq(registrations.id, spent.registrationId), eq(registrations.status, "approved")))
      .returning();
    if (registration === undefined || registration.accountId === null) {
      return refuse("invalid_grant", "The sign-in the authorization code was issued for is no longer approved.");
    }
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
    return refuse(
      "invalid_grant",
      "The authorization code was already redeemed; the tokens it was exchanged for are now revoked.",
    );
  }
  return outcome;
}
