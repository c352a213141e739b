import { createHmac, randomInt, timingSafeEqual } from "node:crypto";
import { and, eq, lt, type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { registrations } from "../db/schema/index.ts";
import { hashSecret } from "../shared/secrets.ts";

/** A claim code lives 10 minutes from approval and allows 5 attempts. */
export const claimCodeLifetimeMs = 10 * 60 * 1000;
export const maxClaimCodeAttempts = 5;

/** Six decimal digits from the CSPRNG, leading zeros kept. */
export function generateClaimCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, "0");
}

/**
 * A million codes are too few for a plain hash to hide one from someone holding a database copy,
 * so codes are stored as an HMAC under the platform secret key, bound to their registration.
 */
export function claimCodeDigest(key: Buffer, registrationId: string, code: string): string {
  return createHmac("sha256", key).update(`claim-code:${registrationId}:${code}`).digest("hex");
}

/**
 * Whether the code matches under any accepted key: during a rotation the previous key's digests
 * stay valid, so a code shown before the rotation can still be claimed within its 10 minutes.
 */
export function claimCodeMatches(
  keys: readonly Buffer[],
  registrationId: string,
  presented: string,
  storedDigest: string,
): boolean {
  const expected = Buffer.from(storedDigest, "hex");
  return keys.some((key) => {
    const actual = Buffer.from(claimCodeDigest(key, registrationId, presented), "hex");
    return expected.length === actual.length && timingSafeEqual(expected, actual);
  });
}

/**
 * Counts one attempt at the code of the approved registration a claim token names, when
 * `conditions` also hold and attempts are left: in its own statement, before the code is compared,
 * so that parallel guesses cannot pass the limit. The registration as counted, or undefined.
 */
export async function countCodeAttempt(
  db: Database,
  claimToken: string,
  ...conditions: SQL[]
): Promise<typeof registrations.$inferSelect | undefined> {
  const [attempt] = await db
    .update(registrations)
    .set({ codeAttempts: sql`${registrations.codeAttempts} + 1` })
    .where(
      and(
        eq(registrations.claimTokenHash, hashSecret(claimToken)),
        ...conditions,
        eq(registrations.status, "approved"),
        lt(registrations.codeAttempts, maxClaimCodeAttempts),
      ),
    )
    .returning();
  return attempt;
}

/** Whether a registration's claim token and its code are both within their lifetimes at `now`. */
export function codeIsLive(
  registration: { claimTokenExpiresAt: Date | null; codeExpiresAt: Date | null },
  now: Date,
): boolean {
  return (
    registration.claimTokenExpiresAt !== null &&
    registration.codeExpiresAt !== null &&
    now.getTime() < registration.claimTokenExpiresAt.getTime() &&
    now.getTime() < registration.codeExpiresAt.getTime()
  );
}
