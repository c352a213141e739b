import { and, eq, isNotNull } from "drizzle-orm";
import type { Database } from "../../db/database.ts";
import { registrations } from "../../db/schema/index.ts";
import type { Clock } from "../../shared/clock.ts";
import type { IdGenerator } from "../../shared/ids.ts";
import { claimCodeMatches, codeIsLive, countCodeAttempt, maxClaimCodeAttempts } from "../claim-code.ts";
import { recordSignInEvent } from "./sign-in.ts";

export type CodeConfirmation =
  | { kind: "confirmed" }
  | { kind: "wrong"; attemptsLeft: number }
  /** The code's 10 minutes, or the sign-in's 30, are over. */
  | { kind: "expired" }
  /** The sign-in waits for no code: not approved yet, already signed in, out of attempts, or unknown. */
  | { kind: "no-code" };

/** Six digits as a person may type them, spaces and dashes aside; anything else is not a code at all. */
export function normalizeSignInCode(typed: string): string | undefined {
  const digits = typed.replace(/[\s-]/g, "");
  return /^\d{6}$/.test(digits) ? digits : undefined;
}

/**
 * The browser that started an OAuth sign-in types the code its approval showed in another browser:
 * proof that the person who approved is the one at this keyboard. Like the agent's claim, each
 * attempt is counted before the code is compared, in its own statement, so parallel guesses cannot
 * pass the limit; the right code clears the digest, which signs this browser in.
 */
export async function confirmSignInCode(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator; secretKeys: readonly Buffer[] },
  presented: { signInToken: string; clientId: string; code: string },
): Promise<CodeConfirmation> {
  const now = deps.clock.now();
  const attempt = await countCodeAttempt(
    db,
    presented.signInToken,
    eq(registrations.type, "oauth-client"),
    eq(registrations.clientId, presented.clientId),
    isNotNull(registrations.codeHash),
  );
  const digest = attempt?.codeHash;
  if (attempt === undefined || digest === null || digest === undefined) return { kind: "no-code" };
  if (!codeIsLive(attempt, now)) return { kind: "expired" };
  if (!claimCodeMatches(deps.secretKeys, attempt.id, presented.code, digest)) {
    return { kind: "wrong", attemptsLeft: maxClaimCodeAttempts - attempt.codeAttempts };
  }
  return db.transaction(async (tx): Promise<CodeConfirmation> => {
    const [confirmed] = await tx
      .update(registrations)
      .set({ codeHash: null, codeExpiresAt: null })
      .where(and(eq(registrations.id, attempt.id), eq(registrations.codeHash, digest)))
      .returning({ id: registrations.id });
    if (confirmed === undefined) return { kind: "no-code" };
    await recordSignInEvent(tx, deps, attempt, "registration.code_confirmed", { clientId: attempt.clientId });
    return { kind: "confirmed" };
  });
}
