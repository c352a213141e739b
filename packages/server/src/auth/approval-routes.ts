import { type Context, Hono } from "hono";
import { acceptedSecretKeys } from "../config/secret-key.ts";
import type { AppEnv } from "../http/app-env.ts";
import { readFormFields } from "../http/form-fields.ts";
import type { PlatformContext } from "../platform-context.ts";
import { tokenPattern } from "../shared/secrets.ts";
import { approvalCsrfTokenIsValidUnder, issueApprovalCsrfToken } from "./approval-csrf.ts";
import {
  type Decision,
  decideRegistration,
  type PendingRegistrationView,
  viewRegistrationByApprovalToken,
} from "./decide-registration.ts";
import {
  alreadyApprovedPage,
  approvalRequestPage,
  approvedPage,
  messagePage,
  unreadableFormPage,
} from "./pages/approval-pages.ts";
import { signInApprovalPageUrl } from "./register-with-email.ts";

const approvalTokenPattern = tokenPattern("apv");
const decisions: readonly string[] = ["approve", "deny", "revoke"];

const unknownLink = () =>
  messagePage("Link not valid", "This approval link is not valid. Ask the agent to register again to get a new mail.");

type Status = 200 | 400 | 403 | 404 | 409 | 410;

function pageFor(c: Context<AppEnv>, html: string, status: Status): Response {
  c.header("Cache-Control", "no-store");
  return c.html(html, status);
}

/** The page a link shows for a registration in its current state (the approval form while pending). */
function statePage(
  registration: PendingRegistrationView,
  csrfToken: string,
  now: Date,
): { html: string; status: Status } {
  switch (registration.status) {
    case "pending":
      return registration.expired
        ? {
            html: messagePage(
              "Link expired",
              "This request expired 30 minutes after the agent made it. Ask the agent to register again.",
            ),
            status: 410,
          }
        : { html: approvalRequestPage(registration, csrfToken, now), status: 200 };
    case "approved":
      return { html: alreadyApprovedPage(csrfToken), status: 200 };
    case "denied":
      return { html: messagePage("Request denied", "You denied this request. The agent gets no access."), status: 200 };
    case "revoked":
      return {
        html: messagePage("Approval revoked", "This request was revoked. The agent cannot claim access with it."),
        status: 200,
      };
    default:
      return {
        html: messagePage(
          "Link already used",
          "The agent has already claimed access with this request; this link does nothing more.",
        ),
        status: 410,
      };
  }
}

/**
 * `GET|POST /agent/auth/approve?token=apv_…`: the page the approval mail links to. GET never changes
 * anything. The token travels in the query so that access logs, which record the path, never hold it.
 * An OAuth sign-in is decided on its own page, where the browser that started it is recognised, so
 * its token is sent there (a link of a mail sent before that page existed).
 */
export function approvalRoutes(context: PlatformContext): Hono<AppEnv> {
  const { database, clock, ids } = context;
  const key = context.config.secretKey;
  const app = new Hono<AppEnv>();
  const toSignInPage = (c: Context<AppEnv>, token: string, status: 302 | 303) => {
    c.header("Cache-Control", "no-store");
    return c.redirect(signInApprovalPageUrl(context.config.authUrl, token), status);
  };

  app.get("/agent/auth/approve", async (c) => {
    const token = c.req.query("token") ?? "";
    const registration = approvalTokenPattern.test(token)
      ? await viewRegistrationByApprovalToken(database.db, clock, token)
      : undefined;
    if (registration === undefined) return pageFor(c, unknownLink(), 404);
    if (registration.type === "oauth-client") return toSignInPage(c, token, 302);
    const now = clock.now();
    const { html, status } = statePage(registration, issueApprovalCsrfToken(key, token, now), now);
    return pageFor(c, html, status);
  });

  app.post("/agent/auth/approve", async (c) => {
    const token = c.req.query("token") ?? "";
    if (!approvalTokenPattern.test(token)) return pageFor(c, unknownLink(), 404);
    const field = await readFormFields(c);
    if (field === undefined) return pageFor(c, unreadableFormPage(), 400);
    if (!approvalCsrfTokenIsValidUnder(acceptedSecretKeys(context.config), token, field("csrf"), clock.now())) {
      return pageFor(
        c,
        messagePage("Please try again", "This form is out of date. Open the link from the mail again."),
        403,
      );
    }
    const decision = decisions.includes(field("decision")) ? (field("decision") as Decision) : undefined;
    if (decision === undefined) {
      return pageFor(c, messagePage("Choose an answer", "Use the Approve or Deny button on the page."), 400);
    }
    const registration = await viewRegistrationByApprovalToken(database.db, clock, token);
    if (registration === undefined) return pageFor(c, unknownLink(), 404);
    if (registration.type === "oauth-client") return toSignInPage(c, token, 303);
    const outcome = await decideRegistration(database.db, { clock, ids, secretKey: key }, token, decision);
    if (outcome === undefined) return pageFor(c, unknownLink(), 404);
    const now = clock.now();
    const nextCsrf = issueApprovalCsrfToken(key, token, now);
    if (outcome.kind === "approved") {
      return pageFor(c, approvedPage(outcome.registration, outcome.code, outcome.codeExpiresAt, nextCsrf, now), 200);
    }
    const { html, status } = statePage(outcome.registration, nextCsrf, now);
    return pageFor(c, html, outcome.kind === "refused" && status === 200 ? 409 : status);
  });

  return app;
}
