import { Hono } from "hono";
import { getCookie } from "hono/cookie";
import type { AppEnv } from "../../http/app-env.ts";
import type { PlatformContext } from "../../platform-context.ts";
import { tokenPattern } from "../../shared/secrets.ts";
import { issueApprovalCsrfToken } from "../approval-csrf.ts";
import {
  decideRegistration,
  type PendingRegistrationView,
  viewRegistrationByApprovalToken,
} from "../decide-registration.ts";
import { noStorePage, readLinkDecision, type StatusPage, statusMessage } from "../link-page.ts";
import { messagePage } from "../pages/approval-pages.ts";
import {
  cancelSignInPage,
  type SignInApprovalDetails,
  signInAlreadyApprovedPage,
  signInApprovalPage,
  signInCodePage,
} from "../pages/sign-in-approval-pages.ts";
import { redirectHostOf } from "./redirect-uri.ts";
import { signInCookieName } from "./sign-in.ts";

const approvalTokenPattern = tokenPattern("apv");

const unknownLink = () =>
  messagePage("Link not valid", "This sign-in link is not valid. Start again from the application.");

/** The sign-in's client and redirect host, read back from the authorization request it returns to. */
function detailsOf(registration: PendingRegistrationView): SignInApprovalDetails {
  const query = new URL(registration.returnUrl ?? "about:blank").searchParams;
  const redirectUri = query.get("redirect_uri");
  return {
    clientName: registration.agentDescription,
    clientId: query.get("client_id") ?? "",
    redirectHost: redirectUri !== null && URL.canParse(redirectUri) ? redirectHostOf(redirectUri) : "",
    email: registration.email,
    scopes: registration.scopes,
  };
}

/** The page a link shows for a sign-in in its current state; `cancel` asks only "cancel it?" while pending. */
function statePage(
  registration: PendingRegistrationView,
  approvalToken: string,
  csrfToken: string,
  now: Date,
  cancel: boolean,
): StatusPage {
  const signIn = detailsOf(registration);
  switch (registration.status) {
    case "pending":
      if (registration.expired) {
        return statusMessage(
          "Link expired",
          "This sign-in expired 30 minutes after it started. Start again from the application.",
          410,
        );
      }
      return {
        html: cancel
          ? cancelSignInPage(signIn, approvalToken, csrfToken)
          : signInApprovalPage(signIn, registration.linkExpiresAt, csrfToken, now),
        status: 200,
      };
    case "approved":
      return { html: signInAlreadyApprovedPage(signIn, csrfToken), status: 200 };
    case "denied":
    case "revoked":
      return statusMessage("Sign-in cancelled", "You cancelled this sign-in. Nobody gets access with it.", 200);
    default:
      return statusMessage(
        "Sign-in complete",
        "The application got its access with this sign-in. To end it, revoke the agent in Studio or with agents.revoke.",
        410,
      );
  }
}

/**
 * `GET|POST {auth_url}/oauth2/approve?token=apv_…[&answer=cancel]`: the page an OAuth sign-in's
 * mail links to. It lives under `/oauth2/` so that the sign-in cookie reaches it: Approve in the
 * browser that started the sign-in returns it to the consent page; Approve anywhere else shows a
 * code that only the starting browser can use. GET changes nothing (mail scanners open links).
 */
export function signInApprovalRoutes(context: PlatformContext): Hono<AppEnv> {
  const { database, clock, ids } = context;
  const key = context.config.secretKey;
  const app = new Hono<AppEnv>();

  /** The OAuth sign-in a well-formed link names; any other registration is not this page's. */
  async function signInOf(token: string): Promise<PendingRegistrationView | undefined> {
    if (!approvalTokenPattern.test(token)) return undefined;
    const registration = await viewRegistrationByApprovalToken(database.db, clock, token);
    return registration?.type === "oauth-client" ? registration : undefined;
  }

  app.get("/oauth2/approve", async (c) => {
    const token = c.req.query("token") ?? "";
    const answer = c.req.query("answer");
    if (answer !== undefined && answer !== "cancel") {
      return noStorePage(c, messagePage("Link not valid", 'The only answer a link can carry is "cancel".'), 400);
    }
    const registration = await signInOf(token);
    if (registration === undefined) return noStorePage(c, unknownLink(), 404);
    const now = clock.now();
    const csrf = issueApprovalCsrfToken(key, token, now);
    const { html, status } = statePage(registration, token, csrf, now, answer === "cancel");
    return noStorePage(c, html, status);
  });

  app.post("/oauth2/approve", async (c) => {
    const token = c.req.query("token") ?? "";
    if (!approvalTokenPattern.test(token)) return noStorePage(c, unknownLink(), 404);
    const decision = await readLinkDecision(c, context.config, token, clock.now(), "Use the buttons on the page.");
    if (decision instanceof Response) return decision;
    if ((await signInOf(token)) === undefined) return noStorePage(c, unknownLink(), 404);
    const outcome = await decideRegistration(
      database.db,
      { clock, ids, secretKey: key },
      token,
      decision,
      getCookie(c, signInCookieName),
    );
    if (outcome === undefined) return noStorePage(c, unknownLink(), 404);
    const now = clock.now();
    const nextCsrf = issueApprovalCsrfToken(key, token, now);
    if (outcome.kind === "signed-in" && outcome.registration.returnUrl !== null) {
      c.header("Cache-Control", "no-store");
      return c.redirect(outcome.registration.returnUrl, 303);
    }
    if (outcome.kind === "approved") {
      const signIn = detailsOf(outcome.registration);
      return noStorePage(c, signInCodePage(signIn, outcome, nextCsrf, now), 200);
    }
    const { html, status } = statePage(outcome.registration, token, nextCsrf, now, false);
    return noStorePage(c, html, outcome.kind === "refused" && status === 200 ? 409 : status);
  });

  return app;
}
