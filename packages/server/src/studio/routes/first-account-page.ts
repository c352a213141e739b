import { html } from "hono/html";
import { page } from "../../auth/pages/page-layout.ts";

/** The page of a fresh server's first-account link: one field, posted back to the same link. */
export function firstAccountPage(token: string, problem?: string): string {
  return page(
    "Welcome to Weft",
    html`<h1>Welcome to Weft</h1>
      <p>This server has no account yet. Enter your email address: it becomes the first account, owner of
        its own workspace, and you go on to Weft Studio. Later sign-ins use this address.</p>
      ${problem === undefined ? "" : html`<p role="alert" id="problem">${problem}</p>`}
      <form method="post">
        <input type="hidden" name="token" value="${token}" />
        <p><label for="email">Email address</label><br />
          <input id="email" name="email" type="email" autocomplete="email" required /></p>
        <button type="submit" class="primary">Create my account</button>
      </form>`,
  );
}
