import { html } from "hono/html";
import { mailHtml } from "../../mail/mail-html.ts";
import type { MailMessage } from "../../mail/mailer.ts";
import type { SignInRequester } from "./sign-in-requester.ts";

export interface SignInApprovalMailInput {
  to: string;
  clientName: string;
  clientId: string;
  redirectHost: string;
  requester: SignInRequester;
  scopes: readonly string[];
  approvalUrl: string;
  cancelUrl: string;
  expiresAt: Date;
}

/**
 * The mail asking a person to approve a sign-in on the authorize page. Anyone can type any address
 * there, so the mail says which application asked, where it sends the answer, and from which
 * address and browser, and offers a link that cancels the sign-in.
 */
export function signInApprovalMail(input: SignInApprovalMailInput): MailMessage {
  const expires = input.expiresAt.toISOString();
  const from = `${input.requester.ip}, ${input.requester.browser}`;
  const text = [
    "Someone is signing in to Weft with your email address, to let an application use your workspace.",
    "",
    `Application: ${input.clientName}`,
    `Client ID: ${input.clientId}`,
    `Sends you back to: ${input.redirectHost}`,
    `Asked from: ${from}`,
    `Access requested: ${input.scopes.join(", ")}`,
    "",
    "If this is you, review and approve the sign-in:",
    input.approvalUrl,
    "Opened in another browser than the one you are signing in with, it shows a code to type there.",
    "",
    "If this was not you, cancel the sign-in:",
    input.cancelUrl,
    "",
    `The links work until ${expires}. Nothing happens unless you approve.`,
  ].join("\n");
  const body = html`<p>Someone is signing in to Weft with your email address, to let an application use your workspace.</p>
    <p>Application: ${input.clientName}<br />Client ID: ${input.clientId}<br />Sends you back to: ${input.redirectHost}<br />Asked from: ${from}<br />Access requested: ${input.scopes.join(", ")}</p>
    <p>If this is you: <a href="${input.approvalUrl}">review and approve the sign-in</a>. Opened in another browser than the one you are signing in with, it shows a code to type there.</p>
    <p>If this was not you: <a href="${input.cancelUrl}">cancel the sign-in</a>.</p>
    <p>The links work until ${expires}. Nothing happens unless you approve.</p>`;
  return { to: input.to, subject: "Approve a sign-in to Weft", text, html: mailHtml(body) };
}
