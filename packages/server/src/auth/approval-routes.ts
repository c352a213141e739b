import { type Context, Hono } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import type { PlatformContext } from "../platform-context.ts";
import { tokenPattern } from "../shared/secrets.ts";
import { issueApprovalCsrfToken } from "./approval-csrf.ts";
import {
  decideRegistration,
  isStudioSignIn,
  type PendingRegistrationView,
  viewRegistrationByApprovalToken,
} from "./decide-registration.ts";
import { noStorePage, readLinkDecision, type StatusPage, statusMessage } from "./link-page.ts";
import { alreadyApprovedPage, approvalRequestPage, approvedPage, messagePage } from "./pages/approval-pages.ts";
import { signInApprovalPageUrl, studioSignInApprovalUrl } from "./register-with-email.ts";

const approvalTokenPattern = tokenPattern("apv");

const unknownLink = () =>
  messagePage("Link not valid", "This approval link is not valid. Ask the agent to register again to get a new mail.");

/** The page a link shows for a registration in its current state (the approval form while pending). */
function statePage(registration: PendingRegistrationView, csrfToken: string, now: Date): StatusPage {
  switch (registration.status) {
    case "pending":
      return registration.expired
        ? statusMessage(
            "Link expired",
            "This request expired 30 minutes after the agent made it. Ask the agent to register again.",
            410,
          )
        : { html: approvalRequestPage(registration, csrfToken, now), status: 200 };
    case "approved":
      return { html: alreadyApprovedPage(csrfToken), status: 200 };
    case "denied":
      return statusMessage("Request denied", "You denied this request. The agent gets no access.", 200);
    case "revoked":
      return statusMessage("Approval revoked", "This request was revoked. The agent cannot claim access with it.", 200);
    default:
      return statusMessage(
        "Link already used",
        "The agent has already claimed access with this request; this link does nothing more.",
        410,
      );
  }
}

/**
 * `GET|POST /agent/auth/approve?token=apv_…`: the page the approval mail links to. GET never changes
 * anything. The token travels in the query so that access logs, which record the path, never hold it.
 * An OAuth sign-in is decided on its own page, where the browser that started it is recognised, so
 * its token is sent there (a link of a mail sent before that page existed), and so is a Studio sign-in's.
 */
export function approvalRoutes(context: PlatformContext): Hono<AppEnv> {
  const { database, clock, ids } = context;
  const key = context.config.secretKey;
  const app = new Hono<AppEnv>();
  const toSignInPage = (c: Context<AppEnv>, token: string, status: 302 | 303) => {
    c.header("Cache-Control", "no-store");
    return c.redirect(signInApprovalPageUrl(context.config.authUrl, token), status);
  };

  const toStudioPage = (c: Context<AppEnv>, token: string, status: 302 | 303) => {
    c.header("Cache-Control", "no-store");
    return c.redirect(studioSignInApprovalUrl(`${context.config.baseUrl}/studio`, token), status);
  };

  app.get("/agent/auth/approve", async (c) => {
    const token = c.req.query("token") ?? "";
    const registration = approvalTokenPattern.test(token)
      ? await viewRegistrationByApprovalToken(database.db, clock, token)
      : undefined;
    if (registration === undefined) return noStorePage(c, unknownLink(), 404);
    if (registration.type === "oauth-client") return toSignInPage(c, token, 302);
    if (isStudioSignIn(registration)) return toStudioPage(c, token, 302);
    const now = clock.now();
    const { html, status } = statePage(registration, issueApprovalCsrfToken(key, token, now), now);
    return noStorePage(c, html, status);
  });

  app.post("/agent/auth/approve", async (c) => {
    const token = c.req.query("token") ?? "";
    if (!approvalTokenPattern.test(token)) return noStorePage(c, unknownLink(), 404);
    const decision = await readLinkDecision(
      c,
      context.config,
      token,
      clock.now(),
      "Use the Approve or Deny button on the page.",
    );
    if (decision instanceof Response) return decision;
    const registration = await viewRegistrationByApprovalToken(database.db, clock, token);
    if (registration === undefined) return noStorePage(c, unknownLink(), 404);
    if (registration.type === "oauth-client") return toSignInPage(c, token, 303);
    if (isStudioSignIn(registration)) return toStudioPage(c, token, 303);
    const outcome = await decideRegistration(database.db, { clock, ids, secretKey: key }, token, decision);
    if (outcome === undefined) return noStorePage(c, unknownLink(), 404);
    const now = clock.now();
    const nextCsrf = issueApprovalCsrfToken(key, token, now);
    if (outcome.kind === "approved") {
      return noStorePage(c, approvedPage(outcome.registration, outcome, nextCsrf, now), 200);
    }
    const { html, status } = statePage(outcome.registration, nextCsrf, now);
    return noStorePage(c, html, outcome.kind === "refused" && status === 200 ? 409 : status);
  });

  return app;
}
