import type { Database } from "../db/database.ts";
import type { CredentialRevocations } from "../identity/credential-revocations.ts";
import { revokeCredentialBySecret, revokeCredentialsOfDelegation } from "../identity/credentials.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { type AuthResult, refuse } from "./auth-error.ts";
import { recordAssertionId } from "./used-assertion-ids.ts";
import type { VerifiedLogoutToken } from "./verify-logout-token.ts";

export interface RevocationDeps {
  clock: Clock;
  ids: IdGenerator;
  credentialRevocations: CredentialRevocations;
}

/** Revokes the presented credential; says nothing about whether it existed, so it cannot be probed. */
export async function revokePresentedCredential(db: Database, deps: RevocationDeps, credential: string): Promise<void> {
  const revoked = await db.transaction((tx) => revokeCredentialBySecret(tx, deps, credential));
  deps.credentialRevocations.publish(revoked);
}

/** Spends a verified logout token and revokes every credential issued for its `(iss, sub)`. */
export async function revokeDelegation(
  db: Database,
  deps: RevocationDeps,
  token: VerifiedLogoutToken,
): Promise<AuthResult<{ revokedCount: number }>> {
  const revoked = await db.transaction(async (tx) => {
    if (!(await recordAssertionId(tx, deps.clock, token))) return undefined;
    return revokeCredentialsOfDelegation(tx, deps, { issuer: token.issuer, subject: token.subject });
  });
  if (revoked === undefined) return refuse("replay_detected", "This logout token has already been used.");
  deps.credentialRevocations.publish(revoked);
  return { ok: true, value: { revokedCount: revoked.length } };
}
