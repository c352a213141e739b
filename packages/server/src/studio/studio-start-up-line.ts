import type { PlatformContext } from "../platform-context.ts";
import { createSignInLink, firstAccount, signInLinkLifetimeMs } from "./session/sign-in-link.ts";

/**
 * The start-up line about Studio. On the embedded database, printed to a terminal, it is a one-time
 * sign-in link for the first account, so the person who just started the server is in with one
 * click. Anywhere else (PostgreSQL, output collected into logs, no account yet) it names the page,
 * where one signs in by mail: a link that grants a session has no place in a log.
 */
export async function studioStartUpLine(
  context: Pick<PlatformContext, "config" | "database" | "clock" | "mailer">,
  printedToTerminal: boolean,
): Promise<string> {
  const { config, database, clock } = context;
  const studioUrl = `${config.baseUrl}/studio/`;
  const account =
    printedToTerminal && config.database.kind === "embedded" ? await firstAccount(database.db) : undefined;
  if (account === undefined) {
    const mailbox = context.mailer.outbox === undefined ? "" : "; the mail arrives in the dev mailbox";
    return `Weft Studio: ${studioUrl} (sign in with your email address${mailbox})`;
  }
  const token = await createSignInLink(database.db, clock, account.id);
  const minutes = signInLinkLifetimeMs / 60_000;
  return `Weft Studio: ${config.baseUrl}/studio/api/sign-in/link?token=${token} (signs ${account.email} in, once, within ${minutes} minutes)`;
}
