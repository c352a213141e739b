import type { TokenDecision } from "../wait-tokens/token-decisions.ts";
import { csrfFieldName } from "./csrf-token.ts";
import { humanize } from "./form-fields.ts";
import { html } from "./html.ts";
import { renderPage } from "./page-layout.ts";

/** What a token's page shows of the request: the workflow's title, description and fields, all escaped. */
export interface TokenPageRequest {
  name: string;
  expiresAt: Date;
  title: string | null;
  description: string | null;
  fields: { label: string; value: string }[] | null;
}

function requestSummary(request: TokenPageRequest, title: string) {
  const fields = request.fields ?? [];
  return html`<h1>${title}</h1>
${request.description === null ? "" : html`<p class="lead description">${request.description}</p>`}
${
  fields.length === 0
    ? ""
    : html`<dl class="token-fields">${fields.map((field) => html`<dt>${field.label}</dt><dd>${field.value}</dd>`)}</dl>`
}`;
}

/** The page a wait token's URL shows: what is asked, then Approve and Reject, posted back with a CSRF token. */
export function renderTokenPage(options: TokenPageRequest & { action: string; csrfToken: string }): string {
  const title = options.title ?? humanize(options.name);
  return renderPage({
    title,
    body: html`<p class="status">Waiting for your answer</p>
${requestSummary(options, title)}
<p class="lead">A workflow is waiting for a decision. This link works once, until ${options.expiresAt.toUTCString()}.</p>
<form method="post" action="${options.action}">
<input type="hidden" name="${csrfFieldName}" value="${options.csrfToken}">
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="reject">Reject</button>
</form>`,
  });
}

/**
 * The page of a token only a signed-in member may answer: the request, and where to answer it. The
 * URL alone answers nothing, so it carries no form.
 */
export function renderMembersOnlyTokenPage(options: TokenPageRequest & { studioUrl: string }): string {
  const title = options.title ?? humanize(options.name);
  return renderPage({
    title,
    body: html`<p class="status">Waiting for a member of the workspace</p>
${requestSummary(options, title)}
<p class="lead">Only a signed-in member of the workspace can answer this request, until ${options.expiresAt.toUTCString()}.</p>
<p><a class="button" href="${options.studioUrl}">Answer in Weft Studio</a></p>`,
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
