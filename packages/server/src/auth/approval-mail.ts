import { html } from "hono/html";
import { mailHtml } from "../mail/mail-html.ts";
import type { MailMessage } from "../mail/mailer.ts";

export interface ApprovalMailInput {
  to: string;
  agentDescription: string;
  scopes: readonly string[];
  approvalUrl: string;
  expiresAt: Date;
}

/** The mail asking a person to approve an agent's registration: one link, to the approval page. */
export function approvalMail(input: ApprovalMailInput): MailMessage {
  const expires = input.expiresAt.toISOString();
  const text = [
    "An AI agent asked to act in your Weft workspace on your behalf.",
    "",
    `Agent: ${input.agentDescription}`,
    `Access requested: ${input.scopes.join(", ")}`,
    "",
    "To review the request and approve or deny it, open:",
    input.approvalUrl,
    "",
    `The link works until ${expires}. If you did not expect this, ignore this mail: nothing happens unless you approve.`,
  ].join("\n");
  const body = html`<p>An AI agent asked to act in your Weft workspace on your behalf.</p>
    <p>Agent: ${input.agentDescription}<br />Access requested: ${input.scopes.join(", ")}</p>
    <p><a href="${input.approvalUrl}">Review the request</a></p>
    <p>The link works until ${expires}. If you did not expect this, ignore this mail: nothing happens unless you approve.</p>`;
  return { to: input.to, subject: "Approve an AI agent's access to Weft", text, html: mailHtml(body) };
}
