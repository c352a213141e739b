import { html } from "hono/html";
import { readableInstant } from "../../shared/readable-instant.ts";
import type { PendingRegistrationView } from "../decide-registration.ts";
import { page } from "./page-layout.ts";

/** The last rows of a request's details: whose address it is sent to, and the access it asks for. */
export function emailAndScopeRows(email: string, scopes: readonly string[]) {
  return html`<dt>Your email</dt>
    <dd>${email}</dd>
    <dt>Access requested</dt>
    <dd>
      <ul>
        ${scopes.map((scope) => html`<li><code>${scope}</code></li>`)}
      </ul>
    </dd>`;
}

function requestDetails(registration: PendingRegistrationView) {
  return html`<dl>
    <dt>Agent</dt>
    <dd>${registration.agentDescription}</dd>
    ${emailAndScopeRows(registration.email, registration.scopes)}
  </dl>`;
}

/** The one-time code an approval shows, and when it expires. */
export interface IssuedCode {
  code: string;
  codeExpiresAt: Date;
}

/** An instant as the approval pages show it, machine-readable in `datetime`. */
export function instant(at: Date, now: Date) {
  return html`<time datetime="${at.toISOString()}">${readableInstant(at, now)}</time>`;
}

/** The form of an approval page's buttons, carrying its CSRF token. */
export function decisionForm(csrfToken: string, buttons: ReturnType<typeof html>) {
  return html`<form method="post">
    <input type="hidden" name="csrf" value="${csrfToken}" />
    ${buttons}
  </form>`;
}

/** The approval link's page: shows the request and offers Approve / Deny. Viewing it changes nothing. */
export function approvalRequestPage(registration: PendingRegistrationView, csrfToken: string, now: Date): string {
  return page(
    "Approve an AI agent",
    html`<h1>Approve an AI agent?</h1>
      <p>An AI agent asked to act in your Weft workspace on your behalf, with the access below.</p>
      ${requestDetails(registration)}
      <p>This request expires ${instant(registration.linkExpiresAt, now)}.</p>
      ${decisionForm(
        csrfToken,
        html`<button type="submit" name="decision" value="approve" class="primary">Approve</button>
          <button type="submit" name="decision" value="deny" class="secondary">Deny</button>`,
      )}`,
  );
}

/** After approval: the one-time code to read back to the agent, and a way to withdraw. */
export function approvedPage(
  registration: PendingRegistrationView,
  { code, codeExpiresAt }: IssuedCode,
  csrfToken: string,
  now: Date,
): string {
  return page(
    "Agent approved",
    html`<h1>Agent approved</h1>
      <p>Give this code to the agent that asked. It works once, and expires ${instant(codeExpiresAt, now)}.</p>
      <h2>Your code</h2>
      <p class="code" id="claim-code">${code}</p>
      ${requestDetails(registration)}
      <p>Changed your mind? Revoking stops the agent from claiming access.</p>
      ${decisionForm(csrfToken, html`<button type="submit" name="decision" value="revoke" class="secondary">Revoke</button>`)}`,
  );
}

/** An approved registration seen again from its link: the code is not shown twice, but it can be revoked. */
export function alreadyApprovedPage(csrfToken: string): string {
  return page(
    "Already approved",
    html`<h1>Already approved</h1>
      <p>You approved this request; its code was shown once and cannot be shown again.</p>
      <p>If you did not give the code to the agent, or changed your mind, revoke the approval.</p>
      ${decisionForm(csrfToken, html`<button type="submit" name="decision" value="revoke" class="secondary">Revoke</button>`)}`,
  );
}

/** Every end state of the link: denied, revoked, expired, used, unknown. */
export function messagePage(title: string, message: string): string {
  return page(title, html`<h1>${title}</h1><p>${message}</p>`);
}

/** What a form page answers, with a 400, to a body `readFormFields` could not read. */
export function unreadableFormPage(): string {
  return messagePage(
    "This form could not be read",
    "Send it from its page, as application/x-www-form-urlencoded or as multipart/form-data with its boundary.",
  );
}
