import { allScopes, credentials, findOrCreateAccount, issueCredential, type Scope } from "@weft/server/internals";
import { eq } from "drizzle-orm";
import type { TestPlatform } from "./test-platform.ts";

export interface TestIdentity {
  email: string;
  accountId: string;
  personalWorkspaceId: string;
  credentialId: string;
  /** The bearer secret. */
  credential: string;
}

/**
 * An account (created if new) and a fresh credential for it, issued by the same services the
 * registration flows use, for tests that need a caller without going through registration.
 */
export async function createTestIdentity(
  weft: Pick<TestPlatform, "platform">,
  email: string,
  options: { scopes?: Scope[] } = {},
): Promise<TestIdentity> {
  const { database, clock, ids } = weft.platform.context;
  return database.db.transaction(async (tx) => {
    const account = await findOrCreateAccount(tx, { clock, ids }, email);
    const issued = await issueCredential(
      tx,
      { clock, ids },
      {
        accountId: account.accountId,
        scopes: options.scopes ?? [...allScopes],
      },
    );
    return {
      email: account.email,
      accountId: account.accountId,
      personalWorkspaceId: account.personalWorkspaceId,
      credentialId: issued.credentialId,
      credential: issued.credential,
    };
  });
}

/**
 * Marks a credential revoked in the database. With `announce`, this process's caches hear of it
 * at once, as after a revocation here; without, the platform learns of it the way it learns of a
 * revocation made by another process.
 */
export async function revokeTestCredential(
  weft: Pick<TestPlatform, "platform">,
  credentialId: string,
  options: { announce: boolean },
): Promise<void> {
  const { database, clock, credentialRevocations } = weft.platform.context;
  await database.db.update(credentials).set({ revokedAt: clock.now() }).where(eq(credentials.id, credentialId));
  if (options.announce) credentialRevocations.publish([credentialId]);
}

/** Addresses `${prefix}1@example.com`, `${prefix}2@example.com`, …: a new person at each call. */
export function emailSequence(prefix: string): () => string {
  let count = 0;
  return () => {
    count += 1;
    return `${prefix}${count}@example.com`;
  };
}
