import { allScopes } from "@weft/contract";
import { and, asc, eq, gt, isNull } from "drizzle-orm";
import type { Database, Transaction } from "../../db/database.ts";
import { accounts, registrations, studioSignInLinks } from "../../db/schema/index.ts";
import { issueCredential } from "../../identity/credentials.ts";
import type { Clock } from "../../shared/clock.ts";
import type { IdGenerator } from "../../shared/ids.ts";
import { generateToken, hashSecret, tokenPattern } from "../../shared/secrets.ts";
import { type StartedStudioSession, startStudioSession, studioAgentDescription } from "./studio-sessions.ts";

/** A printed sign-in link is for the person starting the server now, not for later. */
export const signInLinkLifetimeMs = 15 * 60 * 1000;

const linkTokenPattern = tokenPattern("wsl");

/** The account that signed up first: the one a local server's start-up signs in. */
export async function firstAccount(db: Database): Promise<{ id: string; email: string } | undefined> {
  const [account] = await db
    .select({ id: accounts.id, email: accounts.email })
    .from(accounts)
    .orderBy(asc(accounts.createdAt), asc(accounts.id))
    .limit(1);
  return account;
}

/** Stores a one-time sign-in link for `accountId` (only its digest) and returns its token. */
export async function createSignInLink(db: Database, clock: Clock, accountId: string): Promise<string> {
  const now = clock.now();
  const token = generateToken("wsl");
  await db.insert(studioSignInLinks).values({
    tokenHash: hashSecret(token),
    accountId,
    createdAt: now,
    expiresAt: new Date(now.getTime() + signInLinkLifetimeMs),
  });
  return token;
}

/**
 * Spends a sign-in link, once, before it expires: issues a "Weft Studio" agent for its account, as
 * a claimed email-verification registration would, and opens a session on it.
 */
export function redeemSignInLink(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  token: string,
): Promise<(StartedStudioSession & { accountId: string }) | undefined> {
  if (!linkTokenPattern.test(token)) return Promise.resolve(undefined);
  return db.transaction(async (tx) => {
    const now = deps.clock.now();
    const [spent] = await tx
      .update(studioSignInLinks)
      .set({ usedAt: now })
      .where(
        and(
          eq(studioSignInLinks.tokenHash, hashSecret(token)),
          isNull(studioSignInLinks.usedAt),
          gt(studioSignInLinks.expiresAt, now),
        ),
      )
      .returning({ accountId: studioSignInLinks.accountId });
    if (spent === undefined) return undefined;
    const [account] = await tx.select({ email: accounts.email }).from(accounts).where(eq(accounts.id, spent.accountId));
    if (account === undefined) return undefined;
    return openLinkedSession(tx, deps, { accountId: spent.accountId, email: account.email });
  });
}

/**
 * What a spent link grants: a "Weft Studio" agent for the account, recorded as a claimed
 * email-verification registration would be, and a session on it.
 */
export async function openLinkedSession(
  tx: Transaction,
  deps: { clock: Clock; ids: IdGenerator },
  account: { accountId: string; email: string },
): Promise<StartedStudioSession & { accountId: string }> {
  const now = deps.clock.now();
  const registrationId = deps.ids("registration");
  const scopes = [...allScopes];
  await tx.insert(registrations).values({
    id: registrationId,
    type: "email-verification",
    status: "claimed",
    email: account.email,
    scopes,
    agentDescription: studioAgentDescription,
    accountId: account.accountId,
    createdAt: now,
    decidedAt: now,
  });
  const issued = await issueCredential(tx, deps, { accountId: account.accountId, scopes, registrationId });
  await tx.update(registrations).set({ credentialId: issued.credentialId }).where(eq(registrations.id, registrationId));
  const session = await startStudioSession(tx, deps, {
    credentialId: issued.credentialId,
    accountId: account.accountId,
  });
  return { ...session, accountId: account.accountId };
}
