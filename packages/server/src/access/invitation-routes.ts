import { type Context, Hono } from "hono";
import { approvalCsrfTokenIsValidUnder, issueApprovalCsrfToken } from "../auth/approval-csrf.ts";
import { messagePage, unreadableFormPage } from "../auth/pages/approval-pages.ts";
import { acceptedSecretKeys } from "../config/secret-key.ts";
import type { AppEnv } from "../http/app-env.ts";
import { readFormFields } from "../http/form-fields.ts";
import type { PlatformContext } from "../platform-context.ts";
import { tokenPattern } from "../shared/secrets.ts";
import { acceptInvitation, type InvitationView, viewInvitation } from "./accept-invitation.ts";
import { invitationPage, joinedPage } from "./invitation-pages.ts";

const invitationTokenPattern = tokenPattern("ivt");

type Status = 200 | 400 | 403 | 404 | 409 | 410;

const unknownLink = () => messagePage("Link not valid", "This invitation link is not valid. Ask for a new invitation.");

function pageFor(c: Context<AppEnv>, html: string, status: Status): Response {
  c.header("Cache-Control", "no-store");
  return c.html(html, status);
}

function endStatePage(invitation: InvitationView): { html: string; status: Status } | undefined {
  switch (invitation.status) {
    case "pending":
      return undefined;
    case "accepted":
      return { html: messagePage("Already accepted", "This invitation has been accepted."), status: 410 };
    case "revoked":
      return { html: messagePage("Invitation withdrawn", "This invitation was withdrawn."), status: 410 };
    case "expired":
      return {
        html: messagePage("Invitation expired", "Invitations last 7 days; ask for a new one."),
        status: 410,
      };
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
    if (invitation === undefined) return pageFor(c, unknownLink(), 404);
    const ended = endStatePage(invitation);
    if (ended !== undefined) return pageFor(c, ended.html, ended.status);
    return pageFor(c, invitationPage(invitation, issueApprovalCsrfToken(key, token, clock.now())), 200);
  });

  app.post("/invitations/accept", async (c) => {
    const token = c.req.query("token") ?? "";
    if (!invitationTokenPattern.test(token)) return pageFor(c, unknownLink(), 404);
    const invitation = await viewInvitation(database.db, { clock }, token);
    if (invitation === undefined) return pageFor(c, unknownLink(), 404);
    // An invitation that can no longer be accepted says so, whatever the form: it changes nothing.
    const ended = endStatePage(invitation);
    if (ended !== undefined) return pageFor(c, ended.html, ended.status);
    const field = await readFormFields(c);
    if (field === undefined) return pageFor(c, unreadableFormPage(), 400);
    if (!approvalCsrfTokenIsValidUnder(acceptedSecretKeys(context.config), token, field("csrf"), clock.now())) {
      return pageFor(
        c,
        messagePage("Please try again", "This form is out of date. Open the link from the mail again."),
        403,
      );
    }
    const accepted = await acceptInvitation(database.db, { clock, ids }, token);
    if (!accepted.ok) {
      return pageFor(c, messagePage("Invitation not usable", accepted.failure.message), 409);
    }
    membershipChanges.publish([accepted.value.accountId]);
    return pageFor(c, joinedPage(invitation.workspaceName, accepted.value.role), 200);
  });

  return app;
}
