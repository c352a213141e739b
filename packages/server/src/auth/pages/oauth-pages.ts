import { html } from "hono/html";
import { page } from "./page-layout.ts";

export interface ConsentDetails {
  clientName: string;
  redirectHost: string;
  scopes: readonly string[];
  email: string;
}

/** Every form of the authorize page posts back to the same request URL, with its step and CSRF token. */
function stepForm(step: "sign-in" | "consent", csrfToken: string, fields: ReturnType<typeof html>) {
  return html`<form method="post">
    <input type="hidden" name="step" value="${step}" />
    <input type="hidden" name="csrf" value="${csrfToken}" />
    ${fields}
  </form>`;
}

/** Step one: the person names their email; the approval mail proves it is theirs. */
export function signInPage(clientName: string, csrfToken: string, problem?: string): string {
  return page(
    "Sign in to Weft",
    html`<h1>Sign in to Weft</h1>
      <p><strong>${clientName}</strong> asks to use your Weft workspace. Sign in with your email address:
        we mail you a link to approve, then you come back here to review the access it asks for.</p>
      ${problem === undefined ? "" : html`<p role="alert" id="problem">${problem}</p>`}
      ${emailForm(csrfToken, "Send the link")}`,
  );
}

/** The email field and its button, on the sign-in page and again to correct a mistyped address. */
function emailForm(csrfToken: string, label: string) {
  return stepForm(
    "sign-in",
    csrfToken,
    html`<p><label for="email">Email address</label><br />
        <input id="email" name="email" type="email" autocomplete="email" required /></p>
      <button type="submit" class="primary">${label}</button>`,
  );
}

/** Between sign-in and approval: the mail is on its way; its link brings the person back here. */
export function checkMailPage(email: string, csrfToken: string): string {
  return page(
    "Check your mail",
    html`<h1>Check your mail</h1>
      <p>We sent a link to <strong>${email}</strong>. Open it in this browser and approve; it brings you back
        here to finish. The link works for 30 minutes.</p>
      <p><a href="">I have approved — continue</a></p>
      <h2>Wrong address?</h2>
      ${emailForm(csrfToken, "Send the link to this address instead")}`,
  );
}

/** Step two: what the client gets if the person agrees; Allow issues the code, Deny tells the client no. */
export function consentPage(details: ConsentDetails, csrfToken: string): string {
  return page(
    "Allow access",
    html`<h1>Allow ${details.clientName} to use your Weft workspace?</h1>
      <dl>
        <dt>Application</dt>
        <dd id="client-name">${details.clientName}</dd>
        <dt>Sends you back to</dt>
        <dd id="redirect-host">${details.redirectHost}</dd>
        <dt>Signed in as</dt>
        <dd>${details.email}</dd>
        <dt>Access requested</dt>
        <dd>
          <ul id="scopes">
            ${details.scopes.map((scope) => html`<li><code>${scope}</code></li>`)}
          </ul>
        </dd>
      </dl>
      <p>It acts as you until you revoke it (Studio, or <code>agents.revoke</code>).</p>
      ${stepForm(
        "consent",
        csrfToken,
        html`<button type="submit" name="decision" value="approve" class="primary">Allow</button>
          <button type="submit" name="decision" value="deny" class="secondary">Deny</button>`,
      )}`,
  );
}
