import type { Scope } from "@weft/contract";
import { and, eq, gt, isNull } from "drizzle-orm";
import type { Database, Transaction } from "../../db/database.ts";
import { accounts, credentials, studioSessions } from "../../db/schema/index.ts";
import type { CredentialRevocations } from "../../identity/credential-revocations.ts";
import { type ActiveCredential, revokeWhere } from "../../identity/credentials.ts";
import type { Clock } from "../../shared/clock.ts";
import type { IdGenerator } from "../../shared/ids.ts";
import { generateToken, hashSecret, tokenPattern } from "../../shared/secrets.ts";

/** How the session's credential is named in `agents.list`: an agent like any other. */
export const studioAgentDescription = "Weft Studio";

/** A session ends after this long without a request. */
export const studioSessionIdleMs = 12 * 60 * 60 * 1000;

/**
 * How stale `lastActiveAt` may get before a request writes it again: one write a minute per
 * session rather than one per request, at the cost of an idle expiry up to this much early.
 */
export const studioSessionActivityResolutionMs = 60 * 1000;

const sessionTokenPrefix = "wss";
const sessionTokenPattern = tokenPattern("wss");

export interface StartedStudioSession {
  sessionId: string;
  /** The cookie's value: returned once, stored only as a digest. */
  token: string;
  expiresAt: Date;
}

export interface StudioSession {
  sessionId: string;
  email: string;
  credential: ActiveCredential;
  expiresAt: Date;
}

/** Opens a session acting through `credentialId`, inside the caller's transaction or on its own. */
export async function startStudioSession(
  db: Database | Transaction,
  deps: { clock: Clock; ids: IdGenerator },
  session: { credentialId: string; accountId: string },
): Promise<StartedStudioSession> {
  const now = deps.clock.now();
  const sessionId = deps.ids("studioSession");
  const token = generateToken(sessionTokenPrefix);
  await db.insert(studioSessions).values({
    id: sessionId,
    tokenHash: hashSecret(token),
    credentialId: session.credentialId,
    accountId: session.accountId,
    createdAt: now,
    lastActiveAt: now,
  });
  return { sessionId, token, expiresAt: new Date(now.getTime() + studioSessionIdleMs) };
}

type SessionDeps = { clock: Clock; ids: IdGenerator; credentialRevocations: CredentialRevocations };

/**
 * The live session a cookie's token names, its idle expiry slid forward: none when the token is
 * unknown, the credential is revoked or expired, or the session sat idle too long. An idle session
 * is closed for good on the way: its credential is revoked, so `agents.list` shows it ended.
 */
export async function findStudioSession(
  db: Database,
  deps: SessionDeps,
  token: string | undefined,
): Promise<StudioSession | undefined> {
  if (token === undefined || !sessionTokenPattern.test(token)) return undefined;
  const now = deps.clock.now();
  const [row] = await db
    .select({
      sessionId: studioSessions.id,
      lastActiveAt: studioSessions.lastActiveAt,
      email: accounts.email,
      credentialId: credentials.id,
      accountId: credentials.accountId,
      scopes: credentials.scopes,
      credentialExpiresAt: credentials.expiresAt,
    })
    .from(studioSessions)
    .innerJoin(credentials, eq(credentials.id, studioSessions.credentialId))
    .innerJoin(accounts, eq(accounts.id, credentials.accountId))
    .where(
      and(
        eq(studioSessions.tokenHash, hashSecret(token)),
        isNull(credentials.revokedAt),
        gt(credentials.expiresAt, now),
      ),
    );
  if (row === undefined) return undefined;
  if (now.getTime() >= row.lastActiveAt.getTime() + studioSessionIdleMs) {
    await endStudioSession(db, deps, row.sessionId, "Studio session idle for 12 h");
    return undefined;
  }
  let lastActiveAt = row.lastActiveAt;
  if (now.getTime() - lastActiveAt.getTime() >= studioSessionActivityResolutionMs) {
    await db.update(studioSessions).set({ lastActiveAt: now }).where(eq(studioSessions.id, row.sessionId));
    lastActiveAt = now;
  }
  const idleExpiry = lastActiveAt.getTime() + studioSessionIdleMs;
  return {
    sessionId: row.sessionId,
    email: row.email,
    credential: {
      credentialId: row.credentialId,
      accountId: row.accountId,
      scopes: row.scopes as Scope[],
      expiresAt: row.credentialExpiresAt,
    },
    expiresAt: new Date(Math.min(idleExpiry, row.credentialExpiresAt.getTime())),
  };
}

/** Ends a session: deletes it and revokes its credential (sign-out, idle expiry). */
export async function endStudioSession(
  db: Database,
  deps: SessionDeps,
  sessionId: string,
  reason: string,
): Promise<void> {
  const revoked = await db.transaction(async (tx) => {
    const [session] = await tx.delete(studioSessions).where(eq(studioSessions.id, sessionId)).returning();
    if (session === undefined) return [];
    return revokeWhere(tx, deps, eq(credentials.id, session.credentialId), reason, {
      accountId: session.accountId,
    });
  });
  deps.credentialRevocations.publish(revoked);
}
