import { isScope, type Scope } from "@weft/contract";
import { and, eq, isNull } from "drizzle-orm";
import { recordAuditEvent } from "../../audit/record-audit-event.ts";
import type { Database } from "../../db/database.ts";
import { credentials, oauthRefreshTokens, registrations } from "../../db/schema/index.ts";
import type { CredentialRevocations } from "../../identity/credential-revocations.ts";
import { revokeWhere } from "../../identity/credentials.ts";
import type { Clock } from "../../shared/clock.ts";
import type { IdGenerator } from "../../shared/ids.ts";
import { hashSecret } from "../../shared/secrets.ts";
import { type AuthResult, refuse } from "../auth-error.ts";
import type { ClientMetadataDocuments } from "./client-metadata-documents.ts";
import { findClient } from "./clients.ts";
import { issueOAuthTokens, type OAuthTokens } from "./oauth-tokens.ts";
import { revokeTokenFamily } from "./token-family.ts";

type Deps = {
  clock: Clock;
  ids: IdGenerator;
  credentialRevocations: CredentialRevocations;
  documents: ClientMetadataDocuments;
};

const invalidToken = () =>
  refuse("invalid_grant", "The refresh token is wrong, expired, revoked, or was issued to another client.");

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
 * spent revokes the whole family.
 */
export async function rotateRefreshToken(
  db: Database,
  deps: Deps,
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
  const outcome = await db.transaction(async (tx): Promise<AuthResult<OAuthTokens> | "reused"> => {
    const [spent] = await tx
      .update(oauthRefreshTokens)
      .set({ usedAt: now })
      .where(and(eq(oauthRefreshTokens.tokenHash, tokenHash), isNull(oauthRefreshTokens.usedAt)))
      .returning();
    if (spent === undefined) {
      const [used] = await tx
        .select({ registrationId: oauthRefreshTokens.registrationId })
        .from(oauthRefreshTokens)
        .where(eq(oauthRefreshTokens.tokenHash, tokenHash));
      if (used === undefined) return invalidToken();
      revokedIds.push(...(await revokeTokenFamily(tx, deps, used.registrationId, "refresh token reused")));
      return "reused";
    }
    if (now.getTime() >= spent.expiresAt.getTime() || spent.clientId !== client.clientId) return invalidToken();
    if (!scopes.ok) return invalidToken();
    const [current] = await tx
      .select({ registration: registrations, revokedAt: credentials.revokedAt })
      .from(registrations)
      .innerJoin(credentials, eq(credentials.id, registrations.credentialId))
      .where(eq(registrations.id, spent.registrationId));
    // An agent revoked (agents.revoke) keeps no way back in through its refresh token.
    if (current === undefined || current.revokedAt !== null || current.registration.accountId === null) {
      return invalidToken();
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
  deps.credentialRevocations.publish(revokedIds);
  if (outcome === "reused") {
    return refuse("invalid_grant", "The refresh token was already used; every token of its grant is revoked.");
  }
  return outcome;
}
