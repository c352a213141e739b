import { html } from "hono/html";
import { mailHtml } from "../mail/mail-html.ts";
import type { MailMessage } from "../mail/mailer.ts";

/** The page an invitation mail links to; the token travels in the query, never in a logged path. */
export function invitationPageUrl(authUrl: string, token: string): string {
  return `${authUrl}/invitations/accept?token=${token}`;
}

/** The mail inviting someone into a workspace: who invites, to what, with which role, and one link. */
export function invitationMail(input: {
  to: string;
  inviterEmail: string | undefined;
  workspaceName: string;
  role: string;
  acceptUrl: string;
  expiresAt: Date;
}): MailMessage {
  const inviter = input.inviterEmail ?? "A member";
  const expires = input.expiresAt.toISOString();
  const text = [
    `${inviter} invited you to the Weft workspace "${input.workspaceName}" as ${input.role}.`,
    "",
    "To see the invitation and accept it, open:",
    input.acceptUrl,
    "",
    `The link works until ${expires}. If you did not expect this, ignore this mail: nothing happens unless you accept.`,
  ].join("\n");
  const body = html`<p>${inviter} invited you to the Weft workspace “${input.workspaceName}” as ${input.role}.</p>
    <p><a href="${input.acceptUrl}">See the invitation</a></p>
    <p>The link works until ${expires}. If you did not expect this, ignore this mail: nothing happens unless you accept.</p>`;
  return { to: input.to, subject: `Join "${input.workspaceName}" on Weft`, text, html: mailHtml(body) };
}
