import { lt } from "drizzle-orm";
import type { Transaction } from "../db/database.ts";
import { usedAssertionIds } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import { maxIssuedAtSkewSeconds } from "./verify-signed-jwt.ts";

/**
 * Records a token's `(iss, jti)` as used; false when it already was. The row lives until the token
 * has expired (plus the clock skew we allow), after which the token fails verification anyway.
 * The primary key makes this single-use across every process sharing the database.
 */
export async function recordAssertionId(
  tx: Transaction,
  clock: Clock,
  token: { issuer: string; jti: string; expiresAt: Date },
): Promise<boolean> {
  await tx.delete(usedAssertionIds).where(lt(usedAssertionIds.expiresAt, clock.now()));
  const inserted = await tx
    .insert(usedAssertionIds)
    .values({
      issuer: token.issuer,
      jti: token.jti,
      expiresAt: new Date(token.expiresAt.getTime() + maxIssuedAtSkewSeconds * 1000),
    })
    .onConflictDoNothing()
    .returning({ jti: usedAssertionIds.jti });
  return inserted.length === 1;
}
