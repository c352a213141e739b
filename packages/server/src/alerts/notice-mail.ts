import type { FailureNotice } from "@weft/contract";
import { html } from "hono/html";
import { mailHtml } from "../mail/mail-html.ts";
import type { MailMessage } from "../mail/mailer.ts";

/** A failure notice told by mail: which workflow, how many failures since the last notice, the last error. */
export function noticeMail(to: string, notice: FailureNotice): MailMessage {
  const count = notice.failures === 1 ? "1 failure" : `${notice.failures} failures`;
  const subject = `[Weft] ${notice.workflow} failed in ${notice.project.name} (${count})`;
  const span =
    notice.failures === 1
      ? `at ${notice.lastFailureAt}`
      : `between ${notice.firstFailureAt} and ${notice.lastFailureAt}`;
  const text = [
    `The workflow "${notice.workflow}" of the project "${notice.project.name}" (${notice.project.id}) failed: ${count} ${span}.`,
    "",
    `Last execution: ${notice.lastExecution.id}, which failed with ${notice.lastExecution.error.name}: ${notice.lastExecution.error.description}`,
    "",
    `See it with: weft executions get ${notice.lastExecution.id}`,
    "At most one notice per workflow is sent every 5 minutes; it counts the failures it stands for.",
  ].join("\n");
  const body = html`<p>The workflow “${notice.workflow}” of the project “${notice.project.name}” (${notice.project.id}) failed: ${count} ${span}.</p>
    <p>Last execution: <code>${notice.lastExecution.id}</code>, which failed with</p>
    <pre>${notice.lastExecution.error.name}: ${notice.lastExecution.error.description}</pre>
    <p>See it with <code>weft executions get ${notice.lastExecution.id}</code>.</p>
    <p>At most one notice per workflow is sent every 5 minutes; it counts the failures it stands for.</p>`;
  return { to, subject, text, html: mailHtml(body) };
}
