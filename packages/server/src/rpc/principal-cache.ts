import { eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { memberships, workspaces } from "../db/schema/index.ts";
import type { CredentialRevocations } from "../identity/credential-revocations.ts";
import { findActiveCredential } from "../identity/credentials.ts";
import type { Clock } from "../shared/clock.ts";
import { createExpiringMap } from "../shared/expiring-map.ts";
import { hashSecret } from "../shared/secrets.ts";
import type { Principal } from "./context.ts";

/**
 * How long a credential lookup is trusted. A revocation made by this process drops the entry at
 * once; one made by another process takes effect when the entry expires.
 */
export const principalCacheTtlMs = 5000;

const defaultMaxEntries = 10_000;

export interface PrincipalResolver {
  /** The principal a bearer secret stands for, or undefined when it is unknown, expired or revoked. */
  resolve(secret: string): Promise<Principal | undefined>;
  /** Stops listening for revocations. */
  close(): void;
}

async function loadPrincipal(
  db: Database,
  clock: Clock,
  secret: string,
): Promise<{ principal: Principal; credentialExpiresAt: Date } | undefined> {
  const credential = await findActiveCredential(db, clock, secret);
  if (credential === undefined) return undefined;
  const rows = await db
    .select({
      workspaceId: memberships.workspaceId,
      role: memberships.role,
      personalAccountId: workspaces.personalAccountId,
    })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(eq(memberships.accountId, credential.accountId));
  const principal: Principal = {
    accountId: credential.accountId,
    credentialId: credential.credentialId,
    scopes: new Set(credential.scopes),
    workspaces: new Map(rows.map((row) => [row.workspaceId, row.role])),
    personalWorkspaceId: rows.find((row) => row.personalAccountId === credential.accountId)?.workspaceId,
  };
  return { principal, credentialExpiresAt: credential.expiresAt };
}

/**
 * Resolves bearer secrets to principals (credential, scopes, workspace roles) with an in-memory
 * cache keyed by the secret's digest. Entries live at most `ttlMs` and never past the credential's
 * own expiry; revocations announced on the bus drop them immediately.
 */
export function createPrincipalResolver(deps: {
  db: Database;
  clock: Clock;
  revocations: CredentialRevocations;
  ttlMs?: number;
  maxEntries?: number;
}): PrincipalResolver {
  const ttlMs = deps.ttlMs ?? principalCacheTtlMs;
  const maxEntries = deps.maxEntries ?? defaultMaxEntries;
  const entries = createExpiringMap<string, Principal>(maxEntries);
  // A lookup that started before a revocation must not cache what it read.
  let revocationEpoch = 0;
  const unsubscribe = deps.revocations.subscribe((credentialIds) => {
    revocationEpoch += 1;
    const revoked = new Set(credentialIds);
    entries.deleteWhere((principal) => revoked.has(principal.credentialId));
  });
  return {
    resolve: async (secret) => {
      const key = hashSecret(secret);
      const nowMs = deps.clock.now().getTime();
      const cached = entries.get(key, nowMs);
      if (cached !== undefined) return cached;
      const epoch = revocationEpoch;
      const loaded = await loadPrincipal(deps.db, deps.clock, secret);
      if (loaded === undefined) return undefined;
      // A revocation announced while we read may concern this credential: read again, cache nothing.
      if (epoch !== revocationEpoch) return (await loadPrincipal(deps.db, deps.clock, secret))?.principal;
      entries.set(key, loaded.principal, Math.min(nowMs + ttlMs, loaded.credentialExpiresAt.getTime()));
      return loaded.principal;
    },
    close: unsubscribe,
  };
}
