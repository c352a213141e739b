import { csrfFieldName } from "./csrf-token.ts";
import { humanize } from "./form-fields.ts";
import { html } from "./html.ts";
import { renderPage } from "./page-layout.ts";

/** The two buttons of a token's page, and the `data` each completes the token with. */
export const tokenDecisions = { approve: { approved: true }, reject: { approved: false } } as const;
export type TokenDecision = keyof typeof tokenDecisions;

/** The page a wait token's URL shows: Approve and Reject, posted back with a CSRF token. */
export function renderTokenPage(options: { name: string; expiresAt: Date; action: string; csrfToken: string }): string {
  const title = humanize(options.name);
  return renderPage({
    title,
    body: html`<p class="status">Waiting for your answer</p>
<h1>${title}</h1>
<p class="lead">A workflow is waiting for a decision. This link works once, until ${options.expiresAt.toUTCString()}.</p>
<form method="post" action="${options.action}">
<input type="hidden" name="${csrfFieldName}" value="${options.csrfToken}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="reject">Reject</button>
</form>`,
  });
}

/** What the person sees once their answer is recorded. */
export function renderTokenAnsweredPage(decision: TokenDecision): string {
  const word = decision === "approve" ? "Approved" : "Rejected";
  return renderPage({
    title: word,
    body: html`<p class="status done">${word}</p>
<h1>Thank you</h1>
<p class="lead">Your answer was recorded; the workflow goes on.</p>`,
  });
}
