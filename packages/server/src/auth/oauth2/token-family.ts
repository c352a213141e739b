import { and, eq, isNull, type SQL } from "drizzle-orm";
import type { Transaction } from "../../db/database.ts";
import { credentials, oauthRefreshTokens } from "../../db/schema/index.ts";
import { revokeWhere } from "../../identity/credentials.ts";
import type { Clock } from "../../shared/clock.ts";
import type { IdGenerator } from "../../shared/ids.ts";

/**
 * Ends a registration's token family: every access token it holds is revoked and no refresh token
 * of it works again. Answers a reused code or a reused refresh token (OAuth 2.1 §4.3.1): one of
 * the two holders is not the client. Returns the revoked credential ids to announce after commit.
 */
export async function revokeTokenFamily(
  tx: Transaction,
  deps: { clock: Clock; ids: IdGenerator },
  registrationId: string,
  reason: string,
): Promise<string[]> {
  await tx
    .update(oauthRefreshTokens)
    .set({ usedAt: deps.clock.now() })
    .where(and(eq(oauthRefreshTokens.registrationId, registrationId), isNull(oauthRefreshTokens.usedAt)));
  return revokeWhere(tx, deps, eq(credentials.registrationId, registrationId) as SQL, reason);
}
