import { html } from "hono/html";
import { page } from "../auth/pages/page-layout.ts";
import type { InvitationView } from "./accept-invitation.ts";

/** The invitation link's page: the workspace, the inviter and the role, with Accept. Viewing it changes nothing. */
export function invitationPage(invitation: InvitationView, csrfToken: string): string {
  return page(
    "Join a workspace",
    html`<h1>Join “${invitation.workspaceName}”?</h1>
      <dl>
        <dt>Workspace</dt>
        <dd>${invitation.workspaceName}</dd>
        <dt>Invited by</dt>
        <dd>${invitation.inviterEmail ?? "a former member"}</dd>
        <dt>Your role</dt>
        <dd>${invitation.role}</dd>
        <dt>Your email</dt>
        <dd>${invitation.email}</dd>
      </dl>
      <p>This invitation expires at <time datetime="${invitation.expiresAt.toISOString()}">${invitation.expiresAt.toISOString()}</time>.</p>
      <form method="post">
        <input type="hidden" name="csrf" value="${csrfToken}" />
        <button type="submit" name="decision" value="accept" class="primary">Accept</button>
      </form>`,
  );
}

export function joinedPage(workspaceName: string, role: string): string {
  return page(
    "Welcome",
    html`<h1>You joined “${workspaceName}”</h1>
      <p>You are now a member with the ${role} role. Your agents' credentials reach this workspace at once.</p>`,
  );
}
