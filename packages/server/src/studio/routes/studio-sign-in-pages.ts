import { html } from "hono/html";
import { decisionForm, type IssuedCode, instant, messagePage } from "../../auth/pages/approval-pages.ts";
import { page } from "../../auth/pages/page-layout.ts";

/** The link's page while the sign-in waits: who would be signed in, and until when the link works. */
export function studioSignInApprovalPage(email: string, linkExpiresAt: Date, csrfToken: string, now: Date): string {
  return page(
    "Sign in to Weft Studio",
    html`<h1>Sign in to Weft Studio?</h1>
      <p>Someone asked to sign in to Weft Studio as <strong id="sign-in-email">${email}</strong>. Choose Sign in
        only if that was you, just now.</p>
      <p>In the browser where you asked, this signs you in at once. In any other, it shows a code to type there.</p>
      <p>This link expires ${instant(linkExpiresAt, now)}.</p>
      ${decisionForm(
        csrfToken,
        html`<button type="submit" name="decision" value="approve" class="primary">Sign in</button>
          <button type="submit" name="decision" value="deny" class="secondary">This was not me</button>`,
      )}`,
  );
}

/**
 * Approved in a browser that did not ask: the code that finishes the sign-in in the one that did.
 * The warning is the point: a stranger who asked gets in only if the person hands the code over.
 */
export function studioSignInCodePage({ code, codeExpiresAt }: IssuedCode, now: Date): string {
  return page(
    "Type this code in Weft Studio",
    html`<h1>Type this code in Weft Studio</h1>
      <p>You approved the sign-in in another browser than the one that asked. On the Weft Studio page where you
        typed your email address, type this code. It works once, and expires ${instant(codeExpiresAt, now)}.</p>
      <p class="code" id="claim-code">${code}</p>
      <p><strong>Never give this code to anyone</strong>, by mail, phone or chat, whoever they say they are:
        whoever types it gets into your workspace.</p>`,
  );
}

export function studioSignInCancelledPage(): string {
  return messagePage("Sign-in cancelled", "Nobody is signed in with this link. You can close this page.");
}
