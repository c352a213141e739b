import { and, eq, gt, isNull } from "drizzle-orm";
import type { Database, Transaction } from "../../db/database.ts";
import { credentials, oauthRefreshTokens, registrations } from "../../db/schema/index.ts";
import { hashSecret } from "../../shared/secrets.ts";
import { type AuthResult, refuse } from "../auth-error.ts";
import { findClient } from "./clients.ts";
import type { OAuthTokenDeps } from "./oauth-tokens.ts";
import { revokeTokenFamily } from "./token-family.ts";

/** The token types this endpoint revokes: those the token endpoint issues (RFC 7009 §2.1). */
export const revocableTokenTypes = ["access_token", "refresh_token"] as const;
type RevocableTokenType = (typeof revocableTokenTypes)[number];

function isRevocableTokenType(value: string): value is RevocableTokenType {
  return (revocableTokenTypes as readonly string[]).includes(value);
}

export interface TokenRevocation {
  clientId: string;
  token: string;
  tokenTypeHint: string | undefined;
}

type GrantOfToken = { registrationId: string; clientId: string | null };

/** The grant of a live refresh token: neither spent, nor revoked with its grant, nor expired. */
async function grantOfRefreshToken(tx: Transaction, tokenHash: string, now: Date): Promise<GrantOfToken | undefined> {
  const [row] = await tx
    .select({ registrationId: oauthRefreshTokens.registrationId, clientId: oauthRefreshTokens.clientId })
    .from(oauthRefreshTokens)
    .where(
      and(
        eq(oauthRefreshTokens.tokenHash, tokenHash),
        isNull(oauthRefreshTokens.usedAt),
        gt(oauthRefreshTokens.expiresAt, now),
      ),
    );
  return row;
}

/**
 * The grant of a live access token the token endpoint issued: a credential of an `oauth-client`
 * registration, whose client is the registration's. Other Weft credentials are no client's tokens.
 */
async function grantOfAccessToken(tx: Transaction, tokenHash: string, now: Date): Promise<GrantOfToken | undefined> {
  const [row] = await tx
    .select({ registrationId: registrations.id, clientId: registrations.clientId })
    .from(credentials)
    .innerJoin(registrations, eq(registrations.id, credentials.registrationId))
    .where(
      and(
        eq(credentials.secretHash, tokenHash),
        isNull(credentials.revokedAt),
        gt(credentials.expiresAt, now),
        eq(registrations.type, "oauth-client"),
      ),
    );
  return row;
}

/**
 * RFC 7009 revocation by the client a token was issued to. Either token ends its grant: every
 * access token of the registration and every refresh token (an access token is the agent's
 * credential, whose revocation already stops the refresh, so revoking only it would leave a
 * refresh token that can do nothing). A token that is unknown, already invalid, or another
 * client's changes nothing and answers success alike (§2.1, §2.2), so nothing can be learnt by
 * probing. The hint only orders the look-ups (§2.1); one naming a type this server does not
 * issue is `unsupported_token_type` (§2.2.1) unless the token is one of its own anyway.
 */
export async function revokeOAuthToken(
  db: Database,
  deps: OAuthTokenDeps,
  presented: TokenRevocation,
): Promise<AuthResult<void>> {
  const client = await findClient(db, deps.documents, presented.clientId);
  if (client === undefined) return refuse("invalid_client", "client_id names no registered client.");
  const now = deps.clock.now();
  const tokenHash = hashSecret(presented.token);
  const lookups =
    presented.tokenTypeHint === "refresh_token"
      ? [grantOfRefreshToken, grantOfAccessToken]
      : [grantOfAccessToken, grantOfRefreshToken];
  const outcome = await db.transaction(async (tx): Promise<"unknown" | string[]> => {
    for (const lookup of lookups) {
      const grant = await lookup(tx, tokenHash, now);
      if (grant === undefined) continue;
      if (grant.clientId !== client.clientId) return [];
      return revokeTokenFamily(tx, deps, grant.registrationId, "revoked by its OAuth client");
    }
    return "unknown";
  });
  if (outcome === "unknown") {
    const hint = presented.tokenTypeHint;
    if (hint !== undefined && !isRevocableTokenType(hint)) {
      return refuse(
        "unsupported_token_type",
        `token_type_hint ${hint} names a type this server does not revoke; it revokes ${revocableTokenTypes.join(" and ")}.`,
      );
    }
    return { ok: true, value: undefined };
  }
  deps.credentialRevocations.publish(outcome);
  return { ok: true, value: undefined };
}
