import { html } from "hono/html";
import { mailHtml } from "../../mail/mail-html.ts";
import type { MailMessage } from "../../mail/mailer.ts";

export interface StudioSignInMailInput {
  to: string;
  approvalUrl: string;
  expiresAt: Date;
}

/**
 * The mail of a Studio sign-in. It speaks of signing in to Weft Studio, which is what the person
 * just asked for, not of an agent's access (the agents' mail, `approvalMail`, keeps that wording).
 */
export function studioSignInMail(input: StudioSignInMailInput): MailMessage {
  const expires = input.expiresAt.toISOString();
  const text = [
    "Someone asked to sign in to Weft Studio with this email address.",
    "",
    "If that was you, open this link and choose Sign in:",
    input.approvalUrl,
    "",
    "Opened in the browser where you asked, it signs you in there at once. Opened anywhere else (a phone), it shows a 6-digit code to type on the Weft Studio page where you asked.",
    "",
    `The link works until ${expires}. If you did not ask, ignore this mail: nobody is signed in unless you choose Sign in.`,
  ].join("\n");
  const body = html`<p>Someone asked to sign in to Weft Studio with this email address.</p>
    <p>If that was you: <a href="${input.approvalUrl}">sign in to Weft Studio</a>.</p>
    <p>Opened in the browser where you asked, the link signs you in there at once. Opened anywhere else (a phone), it shows a 6-digit code to type on the Weft Studio page where you asked.</p>
    <p>The link works until ${expires}. If you did not ask, ignore this mail: nobody is signed in unless you choose Sign in.</p>`;
  return { to: input.to, subject: "Sign in to Weft Studio", text, html: mailHtml(body) };
}
