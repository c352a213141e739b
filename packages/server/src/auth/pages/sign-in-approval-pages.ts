import { html } from "hono/html";
import { decisionForm, emailAndScopeRows, type IssuedCode, instant } from "./approval-pages.ts";
import { page } from "./page-layout.ts";

/** An OAuth sign-in as its approval link shows it: who asks, where the answer goes, for whom. */
export interface SignInApprovalDetails {
  clientName: string;
  clientId: string;
  redirectHost: string;
  email: string;
  scopes: readonly string[];
}

function details(signIn: SignInApprovalDetails) {
  return html`<dl>
    <dt>Application</dt>
    <dd id="client-name">${signIn.clientName}</dd>
    <dt>Client ID</dt>
    <dd id="client-id"><code>${signIn.clientId}</code></dd>
    <dt>Sends you back to</dt>
    <dd id="redirect-host">${signIn.redirectHost}</dd>
    ${emailAndScopeRows(signIn.email, signIn.scopes)}
  </dl>`;
}

export function signInApprovalPage(
  signIn: SignInApprovalDetails,
  linkExpiresAt: Date,
  csrfToken: string,
  now: Date,
): string {
  return page(
    "Approve a sign-in",
    html`<h1>Approve this sign-in?</h1>
      <p>Someone is signing in to Weft with your email address, to let this application use your workspace.
        Approve only if that is you, now.</p>
      ${details(signIn)}
      <p>This request expires ${instant(linkExpiresAt, now)}.</p>
      ${decisionForm(
        csrfToken,
        html`<button type="submit" name="decision" value="approve" class="primary">Approve</button>
          <button type="submit" name="decision" value="deny" class="secondary">This was not me</button>`,
      )}`,
  );
}

/** The mail's "this was not me" link: one button that cancels the sign-in. Viewing it changes nothing. */
export function cancelSignInPage(signIn: SignInApprovalDetails, approvalToken: string, csrfToken: string): string {
  return page(
    "Cancel a sign-in",
    html`<h1>Cancel this sign-in?</h1>
      <p>If you did not start this sign-in, cancel it: nobody gets access with it.</p>
      ${details(signIn)}
      ${decisionForm(
        csrfToken,
        html`<button type="submit" name="decision" value="deny" class="primary">Cancel the sign-in</button>`,
      )}
      <p>It was you after all? <a href="?token=${approvalToken}">Review and approve it</a>.</p>`,
  );
}

/**
 * Approved in a browser that did not start the sign-in: the code that finishes it there. The
 * warning is the point: a stranger who started the sign-in gets in only if the person hands it over.
 */
export function signInCodePage(
  signIn: SignInApprovalDetails,
  { code, codeExpiresAt }: IssuedCode,
  csrfToken: string,
  now: Date,
): string {
  return page(
    "Type this code where you sign in",
    html`<h1>Type this code where you sign in</h1>
      <p>You approved the sign-in in this browser, but it was started in another. Go back to the Weft page
        where you typed your email address, and type this code there. It works once, and expires
        ${instant(codeExpiresAt, now)}.</p>
      <p class="code" id="sign-in-code">${code}</p>
      <p><strong>Never give this code to anyone</strong>, by mail, phone or chat, whoever they say they are:
        whoever types it gets into your workspace. If you did not start this sign-in, cancel it.</p>
      ${details(signIn)}
      ${decisionForm(csrfToken, html`<button type="submit" name="decision" value="revoke" class="secondary">Cancel the sign-in</button>`)}`,
  );
}

/** An approved sign-in seen again from its link: the code is not shown twice, but it can be cancelled. */
export function signInAlreadyApprovedPage(signIn: SignInApprovalDetails, csrfToken: string): string {
  return page(
    "Sign-in approved",
    html`<h1>Sign-in approved</h1>
      <p>You approved this sign-in. A code shown for it is not shown again.</p>
      <p>If you did not start it, or changed your mind, cancel it: the application gets no access.</p>
      ${details(signIn)}
      ${decisionForm(csrfToken, html`<button type="submit" name="decision" value="revoke" class="secondary">Cancel the sign-in</button>`)}`,
  );
}
