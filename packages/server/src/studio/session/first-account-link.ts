import { timingSafeEqual } from "node:crypto";
import { count } from "drizzle-orm";
import type { Database, Transaction } from "../../db/database.ts";
import { accounts } from "../../db/schema/index.ts";
import { findOrCreateAccount } from "../../identity/accounts.ts";
import type { Clock } from "../../shared/clock.ts";
import type { IdGenerator } from "../../shared/ids.ts";
import { generateToken, hashSecret, tokenPattern } from "../../shared/secrets.ts";
import { openLinkedSession, signInLinkLifetimeMs } from "./sign-in-link.ts";
import type { StartedStudioSession } from "./studio-sessions.ts";

const linkTokenPattern = tokenPattern("wsl");

/**
 * The first start of the embedded default has no account for a sign-in link to name. Its start-up
 * line carries this one instead: it asks for an email address, creates the first account with it
 * and signs it in, so the person who just ran `npm start` is in Studio without waiting for a mail.
 * The embedded database allows one process, so the link lives in that process's memory (its digest
 * only): one link, used once, for 15 minutes, and only while no account exists. Whoever reads the
 * terminal of a fresh local server owns it anyway.
 */
export interface FirstAccountLinks {
  issue(): string;
  /** Whether `token` is the live link (unspent, unexpired), in constant time; spends nothing. */
  isLive(token: string): boolean;
  /** Spends the live link: true for the one caller that gets it. */
  spend(token: string): boolean;
}

export function createFirstAccountLinks(clock: Clock): FirstAccountLinks {
  let live: { digest: Buffer; expiresAt: number } | undefined;
  const isLive = (token: string): boolean => {
    if (live === undefined || !linkTokenPattern.test(token) || clock.now().getTime() >= live.expiresAt) return false;
    return timingSafeEqual(Buffer.from(hashSecret(token), "hex"), live.digest);
  };
  return {
    issue: () => {
      const token = generateToken("wsl");
      live = { digest: Buffer.from(hashSecret(token), "hex"), expiresAt: clock.now().getTime() + signInLinkLifetimeMs };
      return token;
    },
    isLive,
    spend: (token) => {
      if (!isLive(token)) return false;
      live = undefined;
      return true;
    },
  };
}

/** Whether the platform has no account yet: the only time a first-account link is offered or honoured. */
export async function hasNoAccount(db: Database | Transaction): Promise<boolean> {
  const [row] = await db.select({ n: count() }).from(accounts);
  return (row?.n ?? 0) === 0;
}

/**
 * Creates the first account for `email` and opens a Studio session on it; undefined when an account
 * exists by now (the link only ever makes the first).
 */
export function openFirstAccountSession(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  email: string,
): Promise<(StartedStudioSession & { accountId: string }) | undefined> {
  return db.transaction(async (tx) => {
    if (!(await hasNoAccount(tx))) return undefined;
    const account = await findOrCreateAccount(tx, deps, email);
    return openLinkedSession(tx, deps, { accountId: account.accountId, email: account.email });
  });
}
