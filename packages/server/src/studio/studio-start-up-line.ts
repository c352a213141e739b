import type { PlatformContext } from "../platform-context.ts";
import { createSignInLink, firstAccount, signInLinkLifetimeMs } from "./session/sign-in-link.ts";

/**
 * The start-up line about Studio. On the embedded database, printed to a terminal, it is a one-time
 * link, so the person who just started the server is in with one click: it signs the first account
 * in, or on a server with no account yet, makes that account with the address they type. Anywhere
 * else (PostgreSQL, output collected into logs) it names the page, where one signs in by mail: a
 * link that grants a session has no place in a log.
 */
export async function studioStartUpLine(
  context: Pick<PlatformContext, "config" | "database" | "clock" | "mailer" | "firstAccountLinks">,
  printedToTerminal: boolean,
): Promise<string> {
  const { config, database, clock } = context;
  const studioUrl = `${config.baseUrl}/studio/`;
  const local = printedToTerminal && config.database.kind === "embedded";
  const account = local ? await firstAccount(database.db) : undefined;
  const minutes = signInLinkLifetimeMs / 60_000;
  if (local && account === undefined) {
    const token = context.firstAccountLinks.issue();
    return `Weft Studio: ${config.baseUrl}/studio/api/sign-in/first?token=${token} (creates your account and signs you in, once, within ${minutes} minutes)`;
  }
  if (account === undefined) {
    const mailbox = context.mailer.outbox === undefined ? "" : "; the mail arrives in the dev mailbox";
    return `Weft Studio: ${studioUrl} (sign in with your email address${mailbox})`;
  }
  const token = await createSignInLink(database.db, clock, account.id);
  return `Weft Studio: ${config.baseUrl}/studio/api/sign-in/link?token=${token} (signs ${account.email} in, once, within ${minutes} minutes)`;
}
