import { eq } from "drizzle-orm";
import { outranks } from "../access/role-rules.ts";
import { agentClientOf } from "../agents/agent-record.ts";
import type { LastUsedRecorder } from "../agents/last-used-recorder.ts";
import type { Database } from "../db/database.ts";
import {
  accounts,
  credentials,
  memberships,
  registrations,
  type WorkspaceRole,
  workspaces,
} from "../db/schema/index.ts";
import type { MembershipChanges } from "../identity/access-changes.ts";
import type { CredentialRevocations } from "../identity/credential-revocations.ts";
import { type ActiveCredential, findActiveCredential } from "../identity/credentials.ts";
import { findProject } from "../projects/project-record.ts";
import type { Clock } from "../shared/clock.ts";
import { createExpiringMap } from "../shared/expiring-map.ts";
import { hashSecret } from "../shared/secrets.ts";
import type { Principal } from "./context.ts";

/**
 * How long a credential lookup is trusted. A revocation or membership change drops the entry at
 * once, in this process and, through the database's notifications, in every other; the expiry only
 * bounds how long a lost notification can leave an entry stale.
 */
export const principalCacheTtlMs = 5000;

const defaultMaxEntries = 10_000;

export interface PrincipalResolver {
  /** The principal a bearer secret stands for, or undefined when it is unknown, expired or revoked. */
  resolve(secret: string): Promise<Principal | undefined>;
  /** Stops listening for revocations. */
  close(): void;
}

/**
 * A federated credential acts in its policy creator's name inside one project: it keeps only that
 * project's workspace, with the creator's role there but never above `member`, so it can change the
 * project yet manage nothing; and nothing at all once the creator has left or the project is gone.
 */
function confineToProject(
  memberOf: Map<string, WorkspaceRole>,
  project: { id: string; workspaceId: string } | undefined,
): Map<string, WorkspaceRole> {
  const role = project === undefined ? undefined : memberOf.get(project.workspaceId);
  if (project === undefined || role === undefined) return new Map();
  return new Map([[project.workspaceId, outranks(role, "member") ? "member" : role]]);
}

/** The principal a bearer secret stands for, read from the database, with its credential's expiry. */
export async function loadPrincipal(
  db: Database,
  clock: Clock,
  secret: string,
): Promise<{ principal: Principal; credentialExpiresAt: Date } | undefined> {
  const credential = await findActiveCredential(db, clock, secret);
  if (credential === undefined) return undefined;
  const principal = await principalOfCredential(db, credential);
  return principal === undefined ? undefined : { principal, credentialExpiresAt: credential.expiresAt };
}

/** The principal an active credential stands for: its account, agent and workspace roles. */
export async function principalOfCredential(
  db: Database,
  credential: ActiveCredential,
): Promise<Principal | undefined> {
  const [identity] = await db
    .select({
      email: accounts.email,
      registrationId: credentials.registrationId,
      clientId: registrations.clientId,
      issuer: registrations.issuer,
      userAgent: registrations.agentDescription,
      type: registrations.type,
      projectId: registrations.projectId,
    })
    .from(credentials)
    .innerJoin(accounts, eq(accounts.id, credentials.accountId))
    .leftJoin(registrations, eq(registrations.id, credentials.registrationId))
    .where(eq(credentials.id, credential.credentialId));
  if (identity === undefined) return undefined;
  const rows = await db
    .select({
      workspaceId: memberships.workspaceId,
      role: memberships.role,
      personalAccountId: workspaces.personalAccountId,
    })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(eq(memberships.accountId, credential.accountId));
  const memberOf = new Map(rows.map((row) => [row.workspaceId, row.role]));
  const projectId = identity.type === "federated" ? (identity.projectId ?? "") : undefined;
  const { type } = identity;
  const principal: Principal = {
    accountId: credential.accountId,
    email: identity.email,
    credentialId: credential.credentialId,
    agentId: identity.registrationId ?? undefined,
    agent: type === null ? undefined : agentClientOf({ ...identity, type }),
    scopes: new Set(credential.scopes),
    workspaces: projectId === undefined ? memberOf : confineToProject(memberOf, await findProject(db, projectId)),
    personalWorkspaceId:
      projectId === undefined
        ? rows.find((row) => row.personalAccountId === credential.accountId)?.workspaceId
        : undefined,
    projectId,
  };
  return principal;
}

/**
 * Resolves bearer secrets to principals (credential, scopes, workspace roles) with an in-memory
 * cache keyed by the secret's digest. Entries live at most `ttlMs` and never past the credential's
 * own expiry; revocations and membership changes announced on the bus drop them immediately. Every
 * resolved credential is handed to `lastUsed`, which stores its use in batches.
 */
export function createPrincipalResolver(deps: {
  db: Database;
  clock: Clock;
  revocations: CredentialRevocations;
  membershipChanges: MembershipChanges;
  lastUsed?: LastUsedRecorder;
  ttlMs?: number;
  maxEntries?: number;
}): PrincipalResolver {
  const ttlMs = deps.ttlMs ?? principalCacheTtlMs;
  const maxEntries = deps.maxEntries ?? defaultMaxEntries;
  const entries = createExpiringMap<string, Principal>(maxEntries);
  // A lookup that started before a revocation or membership change must not cache what it read.
  let revocationEpoch = 0;
  const unsubscribeRevocations = deps.revocations.subscribe((credentialIds) => {
    revocationEpoch += 1;
    const revoked = new Set(credentialIds);
    entries.deleteWhere((principal) => revoked.has(principal.credentialId));
  });
  const unsubscribeMemberships = deps.membershipChanges.subscribe((accountIds) => {
    revocationEpoch += 1;
    const changed = new Set(accountIds);
    entries.deleteWhere((principal) => changed.has(principal.accountId));
  });
  const used = (principal: Principal | undefined, nowMs: number) => {
    if (principal !== undefined) deps.lastUsed?.touch(principal.credentialId, nowMs);
    return principal;
  };
  return {
    resolve: async (secret) => {
      const key = hashSecret(secret);
      const nowMs = deps.clock.now().getTime();
      const cached = entries.get(key, nowMs);
      if (cached !== undefined) return used(cached, nowMs);
      const epoch = revocationEpoch;
      const loaded = await loadPrincipal(deps.db, deps.clock, secret);
      if (loaded === undefined) return undefined;
      // A revocation announced while we read may concern this credential: read again, cache nothing.
      if (epoch !== revocationEpoch) return used((await loadPrincipal(deps.db, deps.clock, secret))?.principal, nowMs);
      entries.set(key, loaded.principal, Math.min(nowMs + ttlMs, loaded.credentialExpiresAt.getTime()));
      return used(loaded.principal, nowMs);
    },
    close: () => {
      unsubscribeRevocations();
      unsubscribeMemberships();
    },
  };
}
