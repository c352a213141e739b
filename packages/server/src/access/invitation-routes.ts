import { Hono } from "hono";
import { issueApprovalCsrfToken } from "../auth/approval-csrf.ts";
import { noStorePage, readLinkForm, type StatusPage, statusMessage } from "../auth/link-page.ts";
import { messagePage } from "../auth/pages/approval-pages.ts";
import type { AppEnv } from "../http/app-env.ts";
import type { PlatformContext } from "../platform-context.ts";
import { tokenPattern } from "../shared/secrets.ts";
import { acceptInvitation, type InvitationView, viewInvitation } from "./accept-invitation.ts";
import { invitationPage, joinedPage } from "./invitation-pages.ts";

const invitationTokenPattern = tokenPattern("ivt");

const unknownLink = () => messagePage("Link not valid", "This invitation link is not valid. Ask for a new invitation.");

function endStatePage(invitation: InvitationView): StatusPage | undefined {
  switch (invitation.status) {
    case "pending":
      return undefined;
    case "accepted":
      return statusMessage("Already accepted", "This invitation has been accepted.", 410);
    case "revoked":
      return statusMessage("Invitation withdrawn", "This invitation was withdrawn.", 410);
    case "expired":
      return statusMessage("Invitation expired", "Invitations last 7 days; ask for a new one.", 410);
  }
}

/**
 * `GET|POST /invitations/accept?token=ivt_…`: the page an invitation mail links to. GET shows the
 * invitation and changes nothing; POST accepts it, with the CSRF token of the approval pages.
 */
export function invitationRoutes(context: PlatformContext): Hono<AppEnv> {
  const { database, clock, ids, membershipChanges } = context;
  const key = context.config.secretKey;
  const app = new Hono<AppEnv>();

  app.get("/invitations/accept", async (c) => {
    const token = c.req.query("token") ?? "";
    const invitation = invitationTokenPattern.test(token)
      ? await viewInvitation(database.db, { clock }, token)
      : undefined;
    if (invitation === undefined) return noStorePage(c, unknownLink(), 404);
    const ended = endStatePage(invitation);
    if (ended !== undefined) return noStorePage(c, ended.html, ended.status);
    return noStorePage(c, invitationPage(invitation, issueApprovalCsrfToken(key, token, clock.now())), 200);
  });

  app.post("/invitations/accept", async (c) => {
    const token = c.req.query("token") ?? "";
    if (!invitationTokenPattern.test(token)) return noStorePage(c, unknownLink(), 404);
    const invitation = await viewInvitation(database.db, { clock }, token);
    if (invitation === undefined) return noStorePage(c, unknownLink(), 404);
    // An invitation that can no longer be accepted says so, whatever the form: it changes nothing.
    const ended = endStatePage(invitation);
    if (ended !== undefined) return noStorePage(c, ended.html, ended.status);
    const form = await readLinkForm(c, context.config, token, clock.now());
    if (form instanceof Response) return form;
    const accepted = await acceptInvitation(database.db, { clock, ids }, token);
    if (!accepted.ok) {
      return noStorePage(c, messagePage("Invitation not usable", accepted.failure.message), 409);
    }
    membershipChanges.publish([accepted.value.accountId]);
    return noStorePage(c, joinedPage(invitation.workspaceName, accepted.value.role), 200);
  });

  return app;
}
