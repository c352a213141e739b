import { isScope, type Scope } from "@weft/contract";
import { and, eq, gt, isNull } from "drizzle-orm";
import { recordAuditEvent } from "../../audit/record-audit-event.ts";
import type { Database, Transaction } from "../../db/database.ts";
import { credentials, oauthRefreshTokens, registrations } from "../../db/schema/index.ts";
import { revokeWhere } from "../../identity/credentials.ts";
import { hashSecret } from "../../shared/secrets.ts";
import { type AuthResult, refuse } from "../auth-error.ts";
import { findClient } from "./clients.ts";
import { issueOAuthTokens, type OAuthTokenDeps, type OAuthTokens } from "./oauth-tokens.ts";
import { revokeTokenFamily } from "./token-family.ts";

/** The grant was revoked (RFC 7009, agents.revoke, or a reuse): its current credential is. */
const grantRevoked = () => refuse("invalid_grant", "The refresh token's grant was revoked; start a new authorization.");

/** Why a refresh token that could not be spent is refused: expired unspent, its grant revoked, or reused. */
async function refuseUnspendableToken(
  tx: Transaction,
  deps: OAuthTokenDeps,
  tokenHash: string,
): Promise<AuthResult<OAuthTokens> | { reused: string[] }> {
  const [held] = await tx
    .select({
      registrationId: oauthRefreshTokens.registrationId,
      usedAt: oauthRefreshTokens.usedAt,
      grantRevokedAt: credentials.revokedAt,
    })
    .from(oauthRefreshTokens)
    .leftJoin(registrations, eq(registrations.id, oauthRefreshTokens.registrationId))
    .leftJoin(credentials, eq(credentials.id, registrations.credentialId))
    .where(eq(oauthRefreshTokens.tokenHash, tokenHash));
  if (held === undefined) return refuse("invalid_grant", "No refresh token of this server matches refresh_token.");
  if (held.usedAt === null) return refuse("invalid_grant", "The refresh token expired; start a new authorization.");
  // Revoking a grant spends its refresh tokens: one of them is not a reuse, and nothing is left to revoke.
  if (held.grantRevokedAt !== null) return grantRevoked();
  return { reused: await revokeTokenFamily(tx, deps, held.registrationId, "refresh token reused") };
}

/** The scopes asked for on refresh: by default all of the grant's, never more (RFC 6749 §6). */
function narrowedScopes(granted: readonly string[], requested: string | undefined): AuthResult<Scope[]> {
  const grantedScopes = granted.filter(isScope);
  if (requested === undefined) return { ok: true, value: grantedScopes };
  const asked = [...new Set(requested.split(" ").filter((scope) => scope !== ""))];
  const beyond = asked.filter((scope) => !(grantedScopes as string[]).includes(scope));
  if (asked.length === 0 || beyond.length > 0) {
    return refuse("invalid_scope", `scope may only narrow the granted scopes: ${grantedScopes.join(" ")}.`);
  }
  return { ok: true, value: asked as Scope[] };
}

/**
 * Spends a refresh token for a new access token and the next refresh token; the access token it
 * replaces is revoked, so the agent holds one live credential. A token presented after it was
 * spent revokes the whole family, unless its grant is revoked already. An expired token is never
 * spent, so it is refused as expired every time.
 */
export async function rotateRefreshToken(
  db: Database,
  deps: OAuthTokenDeps,
  presented: { refreshToken: string; clientId: string; scope: string | undefined },
): Promise<AuthResult<OAuthTokens>> {
  const client = await findClient(db, deps.documents, presented.clientId);
  if (client === undefined) return refuse("invalid_client", "client_id names no registered client.");
  const now = deps.clock.now();
  const tokenHash = hashSecret(presented.refreshToken);
  // Scopes are checked before the token is spent, so a refused narrowing leaves it usable.
  const [held] = await db
    .select({ scopes: oauthRefreshTokens.scopes })
    .from(oauthRefreshTokens)
    .where(eq(oauthRefreshTokens.tokenHash, tokenHash));
  const scopes = narrowedScopes(held?.scopes ?? [], presented.scope);
  if (held !== undefined && !scopes.ok) return scopes;
  const revokedIds: string[] = [];
  const outcome = await db.transaction(async (tx): Promise<AuthResult<OAuthTokens> | { reused: string[] }> => {
    const [spent] = await tx
      .update(oauthRefreshTokens)
      .set({ usedAt: now })
      .where(
        and(
          eq(oauthRefreshTokens.tokenHash, tokenHash),
          isNull(oauthRefreshTokens.usedAt),
          gt(oauthRefreshTokens.expiresAt, now),
        ),
      )
      .returning();
    if (spent === undefined) return refuseUnspendableToken(tx, deps, tokenHash);
    if (spent.clientId !== client.clientId) {
      return refuse("invalid_grant", "The refresh token was issued to another client.");
    }
    // Only a token unknown when its scopes were read, and issued since, gets here with a refused narrowing.
    if (!scopes.ok) return scopes;
    const [current] = await tx
      .select({ registration: registrations, revokedAt: credentials.revokedAt })
      .from(registrations)
      .innerJoin(credentials, eq(credentials.id, registrations.credentialId))
      .where(eq(registrations.id, spent.registrationId));
    // An agent revoked (agents.revoke) keeps no way back in through its refresh token.
    if (current === undefined || current.revokedAt !== null || current.registration.accountId === null) {
      return grantRevoked();
    }
    const previousCredentialId = current.registration.credentialId as string;
    const tokens = await issueOAuthTokens(tx, deps, {
      accountId: current.registration.accountId,
      registrationId: spent.registrationId,
      clientId: client.clientId,
      scopes: scopes.value,
    });
    revokedIds.push(
      ...(await revokeWhere(
        tx,
        deps,
        eq(credentials.id, previousCredentialId),
        "replaced by a refreshed access token",
      )),
    );
    await recordAuditEvent(tx, deps, {
      action: "registration.refreshed",
      targetType: "registration",
      targetId: spent.registrationId,
      actor: {
        accountId: current.registration.accountId,
        credentialId: tokens.credentialId,
        agentId: spent.registrationId,
        agent: { clientId: client.clientId, issuer: null, userAgent: current.registration.agentDescription },
      },
      data: { credentialId: tokens.credentialId, scopes: tokens.scopes },
    });
    return { ok: true, value: tokens };
  });
  if ("reused" in outcome) {
    deps.credentialRevocations.publish(outcome.reused);
    return refuse("invalid_grant", "The refresh token was already used once; every token of its grant is now revoked.");
  }
  deps.credentialRevocations.publish(revokedIds);
  return outcome;
}
