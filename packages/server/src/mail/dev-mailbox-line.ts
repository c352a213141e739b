import { renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** The file in the data dir that holds the dev mailbox's link with its key, when it is not printed. */
export const devMailboxLinkFile = "dev-mailbox.link";

/**
 * The start-up line about the dev mailbox. Printed to a terminal it is the ready link with its key,
 * like a notebook server's. Anywhere else (output collected into logs, read by other users of the
 * machine) the key has no place: the link goes to a file of the data dir only this user can read,
 * and the line names that file.
 */
export function devMailboxStartUpLine(
  input: { baseUrl: string; dataDir: string; key: string },
  printedToTerminal: boolean,
): string {
  const link = `${input.baseUrl}/dev/mailbox?key=${input.key}`;
  if (printedToTerminal) return `Dev mailbox: ${link}`;
  const path = join(input.dataDir, devMailboxLinkFile);
  // Written beside and renamed over: a file (or a link planted) at the path is replaced, never written through.
  const written = `${path}.${process.pid}`;
  rmSync(written, { force: true });
  writeFileSync(written, `${link}\n`, { mode: 0o600, flag: "wx" });
  renameSync(written, path);
  return `Dev mailbox: ${input.baseUrl}/dev/mailbox (its link with the key is in ${path}, readable by this user only)`;
}
