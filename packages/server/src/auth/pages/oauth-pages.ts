import { html } from "hono/html";
import { page } from "./page-layout.ts";

export interface ConsentDetails {
  clientName: string;
  redirectHost: string;
  scopes: readonly string[];
  email: string;
}

/** Every form of the authorize page posts back to the same request URL, with its step and CSRF token. */
function stepForm(step: "sign-in" | "code" | "consent", csrfToken: string, fields: ReturnType<typeof html>) {
  return html`<form method="post">
    <input type="hidden" name="step" value="${step}" />
    <input type="hidden" name="csrf" value="${csrfToken}" />
    ${fields}
  </form>`;
}

function problemNote(problem: string | undefined) {
  return problem === undefined ? "" : html`<p role="alert" id="problem">${problem}</p>`;
}

/** Step one: the person names their email; the approval mail proves it is theirs. */
export function signInPage(clientName: string, csrfToken: string, problem?: string): string {
  return page(
    "Sign in to Weft",
    html`<h1>Sign in to Weft</h1>
      <p><strong>${clientName}</strong> asks to use your Weft workspace. Sign in with your email address:
        we mail you a link to approve, then you come back here to review the access it asks for.</p>
      ${problemNote(problem)}
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

/** The CSRF tokens of the forms shown while a sign-in waits: the email form's and the code form's. */
export interface WaitingForms {
  signInCsrf: string;
  codeCsrf: string;
}

/** The field for the code an approval in another browser shows. */
function codeForm(csrfToken: string) {
  return stepForm(
    "code",
    csrfToken,
    html`<p><label for="code">Code from the approval page</label><br />
        <input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" required /></p>
      <button type="submit" class="primary">Finish signing in</button>`,
  );
}

/**
 * Between sign-in and approval: the mail is on its way. Approved in this browser, its link brings
 * the person back here; approved anywhere else, it shows a code to type here.
 */
export function checkMailPage(email: string, forms: WaitingForms, problem?: string): string {
  return page(
    "Check your mail",
    html`<h1>Check your mail</h1>
      <p>We sent a link to <strong>${email}</strong>. Open it and approve; it works for 30 minutes.</p>
      <ul>
        <li>Opened in this browser, approving brings you straight back here.</li>
        <li>Opened anywhere else, on your phone say, approving shows a 6-digit code: type it below.</li>
      </ul>
      ${problemNote(problem)}
      ${codeForm(forms.codeCsrf)}
      <p><a href="">I have approved in this browser — continue</a></p>
      <h2>Wrong address?</h2>
      ${emailForm(forms.signInCsrf, "Send the link to this address instead")}`,
  );
}

/** Approved in another browser: this one finishes the sign-in only with the code shown there. */
export function enterCodePage(email: string, codeCsrf: string, problem?: string): string {
  return page(
    "Type the code",
    html`<h1>Type the code</h1>
      <p>The sign-in for <strong>${email}</strong> was approved in another browser, which shows a 6-digit
        code. Type it here to finish signing in; it works for 10 minutes.</p>
      ${problemNote(problem)}
      ${codeForm(codeCsrf)}`,
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
