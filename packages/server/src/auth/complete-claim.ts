import type { Scope } from "@weft/contract";
import { and, eq, isNotNull, isNull } from "drizzle-orm";
import { recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { registrations } from "../db/schema/index.ts";
import { findAccountByEmail } from "../identity/accounts.ts";
import { issueCredential } from "../identity/credentials.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { hashSecret } from "../shared/secrets.ts";
import { type AuthResult, refuse } from "./auth-error.ts";
import { claimCodeMatches, codeIsLive, countCodeAttempt } from "./claim-code.ts";

export interface ClaimedRegistration {
  registrationId: string;
  credentialId: string;
  accountId: string;
  credential: string;
  credentialExpires: Date;
  scopes: Scope[];
}

/** One description for every refusal, so a caller learns nothing about which check failed. */
function invalidGrant() {
  return refuse(
    "invalid_grant",
    "The claim token or code is wrong, expired, already used, or the request is not approved.",
  );
}

/**
 * Exchanges a claim token and the 6-digit code the person read from the approval page for a
 * credential, once. Each attempt is counted before the code is compared, in its own statement,
 * so that parallel guesses cannot exceed the limit; the sixth attempt fails even with the right code.
 */
export async function completeClaim(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator; secretKeys: readonly Buffer[] },
  presented: { claimToken: string; code: string },
): Promise<AuthResult<ClaimedRegistration>> {
  const now = deps.clock.now();
  const attempt = await countCodeAttempt(
    db,
    presented.claimToken,
    // An OAuth sign-in's claim token is a browser cookie; it ends in an authorization code, never here.
    eq(registrations.type, "email-verification"),
  );
  if (
    attempt === undefined ||
    attempt.codeHash === null ||
    attempt.accountId === null ||
    !codeIsLive(attempt, now) ||
    !claimCodeMatches(deps.secretKeys, attempt.id, presented.code, attempt.codeHash)
  ) {
    return invalidGrant();
  }
  return claimApproved(db, deps, { ...attempt, accountId: attempt.accountId });
}

/**
 * Completes a Studio sign-in approved in the browser that started it (`decideRegistration` issued
 * no code, having seen that browser's pending cookie, the claim token): the same claim, with the
 * cookie as the proof the code is otherwise.
 */
export async function completeClaimInStartingBrowser(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  claimToken: string,
): Promise<AuthResult<ClaimedRegistration>> {
  const [approved] = await db
    .select()
    .from(registrations)
    .where(
      and(
        eq(registrations.claimTokenHash, hashSecret(claimToken)),
        eq(registrations.type, "email-verification"),
        isNotNull(registrations.returnUrl),
        eq(registrations.status, "approved"),
        isNull(registrations.codeHash),
      ),
    );
  if (
    approved === undefined ||
    approved.accountId === null ||
    approved.claimTokenExpiresAt === null ||
    deps.clock.now().getTime() >= approved.claimTokenExpiresAt.getTime()
  ) {
    return invalidGrant();
  }
  return claimApproved(db, deps, { ...approved, accountId: approved.accountId });
}

/** Marks an approved registration claimed, once, and issues its credential, audited. */
async function claimApproved(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  attempt: typeof registrations.$inferSelect & { accountId: string },
): Promise<AuthResult<ClaimedRegistration>> {
  const accountId = attempt.accountId;
  return db.transaction(async (tx): Promise<AuthResult<ClaimedRegistration>> => {
    const [claimed] = await tx
      .update(registrations)
      .set({ status: "claimed", codeHash: null })
      .where(and(eq(registrations.id, attempt.id), eq(registrations.status, "approved")))
      .returning({ id: registrations.id });
    if (claimed === undefined) return invalidGrant();
    const issued = await issueCredential(tx, deps, {
      accountId,
      scopes: attempt.scopes as Scope[],
      registrationId: attempt.id,
    });
    await tx.update(registrations).set({ credentialId: issued.credentialId }).where(eq(registrations.id, attempt.id));
    const account = await findAccountByEmail(tx, attempt.email);
    await recordAuditEvent(tx, deps, {
      action: "registration.claimed",
      targetType: "registration",
      targetId: attempt.id,
      workspaceId: account?.personalWorkspaceId,
      actor: {
        accountId,
        email: attempt.email,
        credentialId: issued.credentialId,
        agentId: attempt.id,
        agent: { clientId: null, issuer: null, userAgent: attempt.agentDescription },
      },
      data: { credentialId: issued.credentialId },
    });
    return {
      ok: true,
      value: {
        registrationId: attempt.id,
        credentialId: issued.credentialId,
        accountId,
        credential: issued.credential,
        credentialExpires: issued.expiresAt,
        scopes: issued.scopes,
      },
    };
  });
}
