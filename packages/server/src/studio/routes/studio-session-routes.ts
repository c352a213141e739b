import { type StudioSessionAnswers, studioCsrfHeader, studioSessionContract } from "@weft/contract";
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { issueApprovalCsrfToken } from "../../auth/approval-csrf.ts";
import { AuthError } from "../../auth/auth-error.ts";
import { noStore, readJsonObject, requireString } from "../../auth/auth-http.ts";
import {
  decideRegistration,
  isStudioSignIn,
  type PendingRegistrationView,
  viewRegistrationByApprovalToken,
} from "../../auth/decide-registration.ts";
import { isDeliverableEmailAddress } from "../../auth/email-address.ts";
import { noStorePage, readLinkDecision, type StatusPage, statusMessage } from "../../auth/link-page.ts";
import { messagePage, unreadableFormPage } from "../../auth/pages/approval-pages.ts";
import { claimTokenLifetimeMs } from "../../auth/register-with-email.ts";
import { acceptedSecretKeys } from "../../config/secret-key.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { jsonError } from "../../http/errors.ts";
import { readFormFields } from "../../http/form-fields.ts";
import type { PlatformContext } from "../../platform-context.ts";
import { basePathOf } from "../../shared/base-path.ts";
import { tokenPattern } from "../../shared/secrets.ts";
import { hasNoAccount, openFirstAccountSession } from "../session/first-account-link.ts";
import { redeemSignInLink } from "../session/sign-in-link.ts";
import { studioCsrfToken, studioCsrfTokenIsValid } from "../session/studio-csrf.ts";
import { endStudioSession, findStudioSession, type StudioSession } from "../session/studio-sessions.ts";
import {
  completeStudioSignIn,
  completeStudioSignInInStartingBrowser,
  startStudioSignIn,
} from "../session/studio-sign-in.ts";
import { firstAccountPage } from "./first-account-page.ts";
import { studioCookies, studioSessionCookie, studioSignInCookie } from "./studio-cookies.ts";
import { studioSignInApprovalPage, studioSignInCancelledPage, studioSignInCodePage } from "./studio-sign-in-pages.ts";

const approvalTokenPattern = tokenPattern("apv");

export interface StudioSignInLimits {
  /** Starting a sign-in sends a mail: held to the registration rate. */
  signIn: MiddlewareHandler<AppEnv>;
  /** Completing one guesses a code: held to the claim rate. */
  complete: MiddlewareHandler<AppEnv>;
}

/** A JSON body's string field, or a 400 in Studio's error shape. */
async function readField(c: Context<AppEnv>, field: string): Promise<string | Response> {
  try {
    return requireString(await readJsonObject(c), field);
  } catch (error) {
    if (error instanceof AuthError) return jsonError(c, 400, "invalid_request", error.message);
    throw error;
  }
}

function unauthenticated(c: Context<AppEnv>): Response {
  return jsonError(c, 401, "unauthenticated", "Sign in to Weft Studio: the session is missing, expired or revoked.");
}

/** Where the contract puts a session route, under `{studioPath}/api`. */
function routePath(studioPath: string, route: keyof typeof studioSessionContract): string {
  return `${studioPath}/api${studioSessionContract[route]["~orpc"].route.path ?? ""}`;
}

/**
 * Studio's sign-in and session, under `{studioPath}/api`: sign in by mail (the approval machinery
 * agents use) or with a one-time link, read the session, sign out. The JSON routes are the ones
 * `studioSessionContract` describes, at its paths and with its answers.
 */
export function studioSessionRoutes(
  context: PlatformContext,
  studioPath: string,
  limits: StudioSignInLimits,
): Hono<AppEnv> {
  const { database, clock, ids, config, credentialRevocations } = context;
  const cookies = studioCookies(config);
  const keys = () => acceptedSecretKeys(config);
  const sessionDeps = { clock, ids, credentialRevocations };
  const sessionOf = (c: Context<AppEnv>) =>
    findStudioSession(database.db, sessionDeps, cookies.read(c, studioSessionCookie));
  const describe = (session: StudioSession): StudioSessionAnswers["get"] => ({
    email: session.email,
    accountId: session.credential.accountId,
    csrfToken: studioCsrfToken(config.secretKey, session.sessionId),
    expiresAt: session.expiresAt.toISOString(),
  });
  const app = new Hono<AppEnv>();

  app.post(routePath(studioPath, "signIn"), limits.signIn, async (c) => {
    const email = await readField(c, "email");
    if (email instanceof Response) return email;
    const started = await startStudioSignIn(
      database.db,
      { clock, ids, mailer: context.mailer, authUrl: config.authUrl, studioUrl: `${config.baseUrl}/studio` },
      email,
    );
    if (!started.ok) return jsonError(c, 400, "invalid_request", "Enter your email address, like you@example.com.");
    noStore(c);
    cookies.write(c, studioSignInCookie, started.value.claimToken, claimTokenLifetimeMs / 1000);
    return c.json(
      { expiresAt: started.value.claimTokenExpires.toISOString() } satisfies StudioSessionAnswers["signIn"],
      202,
    );
  });

  app.post(routePath(studioPath, "completeSignIn"), limits.complete, async (c) => {
    const code = await readField(c, "code");
    if (code instanceof Response) return code;
    if (!/^\d{6}$/.test(code)) return jsonError(c, 400, "invalid_request", "code must be the 6-digit code.");
    const claimToken = cookies.read(c, studioSignInCookie);
    if (claimToken === undefined) {
      return jsonError(c, 400, "invalid_request", "No sign-in is under way in this browser; start again.");
    }
    const completed = await completeStudioSignIn(database.db, { clock, ids, secretKeys: keys() }, { claimToken, code });
    noStore(c);
    if (!completed.ok) return jsonError(c, 400, completed.refusal.code, completed.refusal.description);
    cookies.clear(c, studioSignInCookie);
    cookies.write(c, studioSessionCookie, completed.value.token);
    const session = await findStudioSession(database.db, sessionDeps, completed.value.token);
    if (session === undefined) return unauthenticated(c);
    const { email, csrfToken } = describe(session);
    return c.json({ email, csrfToken } satisfies StudioSessionAnswers["completeSignIn"]);
  });

  app.get(routePath(studioPath, "get"), async (c) => {
    const session = await sessionOf(c);
    noStore(c);
    return session === undefined ? unauthenticated(c) : c.json(describe(session));
  });

  app.post(routePath(studioPath, "signOut"), async (c) => {
    const session = await sessionOf(c);
    if (session === undefined) return unauthenticated(c);
    if (!studioCsrfTokenIsValid(keys(), session.sessionId, c.req.header(studioCsrfHeader))) {
      return jsonError(c, 403, "csrf_failed", `Send the session's CSRF token in the ${studioCsrfHeader} header.`);
    }
    await endStudioSession(database.db, sessionDeps, session.sessionId, "signed out of Weft Studio");
    cookies.clear(c, studioSessionCookie);
    return c.body(null, 204);
  });

  const approvePath = `${studioPath}/api/sign-in/approve`;
  const unknownLink = (c: Context<AppEnv>) =>
    noStorePage(
      c,
      messagePage("Link not valid", "This sign-in link is not valid. Open Weft Studio and sign in again."),
      404,
    );
  /** The Studio sign-in a well-formed link names; any other registration is not this page's. */
  const signInOf = async (token: string) => {
    if (!approvalTokenPattern.test(token)) return undefined;
    const registration = await viewRegistrationByApprovalToken(database.db, clock, token);
    return registration !== undefined && isStudioSignIn(registration) ? registration : undefined;
  };
  /** The page a link shows for a sign-in in its current state. */
  const statePage = (registration: PendingRegistrationView, csrf: string, now: Date): StatusPage => {
    switch (registration.status) {
      case "pending":
        return registration.expired
          ? statusMessage("Link expired", "This sign-in expired 30 minutes after it was asked for. Sign in again.", 410)
          : { html: studioSignInApprovalPage(registration.email, registration.linkExpiresAt, csrf, now), status: 200 };
      case "approved":
        return statusMessage("Already approved", "You approved this sign-in; its code was shown once.", 200);
      case "denied":
      case "revoked":
        return { html: studioSignInCancelledPage(), status: 200 };
      default:
        return statusMessage("Signed in", "This sign-in is complete: open Weft Studio.", 410);
    }
  };

  // GET changes nothing (mail scanners open links); the decision is a POST with the page's CSRF token.
  app.get(approvePath, async (c) => {
    const token = c.req.query("token") ?? "";
    const registration = await signInOf(token);
    if (registration === undefined) return unknownLink(c);
    const now = clock.now();
    const { html, status } = statePage(registration, issueApprovalCsrfToken(config.secretKey, token, now), now);
    return noStorePage(c, html, status);
  });

  app.post(approvePath, async (c) => {
    const token = c.req.query("token") ?? "";
    if (!approvalTokenPattern.test(token)) return unknownLink(c);
    const decision = await readLinkDecision(c, config, token, clock.now(), "Use the Sign in button on the page.");
    if (decision instanceof Response) return decision;
    if ((await signInOf(token)) === undefined) return unknownLink(c);
    // The pending cookie reaches this path (both are under Studio's): it says whether this browser asked.
    const pending = cookies.read(c, studioSignInCookie);
    const outcome = await decideRegistration(
      database.db,
      { clock, ids, secretKey: config.secretKey },
      token,
      decision,
      pending,
    );
    if (outcome === undefined) return unknownLink(c);
    const now = clock.now();
    if (outcome.kind === "signed-in" && pending !== undefined) {
      const completed = await completeStudioSignInInStartingBrowser(database.db, { clock, ids }, pending);
      if (completed.ok) {
        cookies.clear(c, studioSignInCookie);
        cookies.write(c, studioSessionCookie, completed.value.token);
        c.header("Cache-Control", "no-store");
        return c.redirect(`${basePathOf(config.baseUrl)}/studio/`, 303);
      }
    }
    if (outcome.kind === "approved") return noStorePage(c, studioSignInCodePage(outcome, now), 200);
    const { html, status } = statePage(outcome.registration, issueApprovalCsrfToken(config.secretKey, token, now), now);
    return noStorePage(c, html, outcome.kind === "refused" && status === 200 ? 409 : status);
  });

  const firstAccountPath = `${studioPath}/api/sign-in/first`;
  const linkSpent = (c: Context<AppEnv>) =>
    c.html(
      messagePage(
        "This link no longer works",
        "The first-account link works once, for 15 minutes, while the server has no account. Open Weft Studio and sign in with your email address.",
      ),
      400,
    );

  app.get(firstAccountPath, async (c) => {
    const token = c.req.query("token") ?? "";
    c.header("Cache-Control", "no-store");
    if (!context.firstAccountLinks.isLive(token) || !(await hasNoAccount(database.db))) return linkSpent(c);
    return c.html(firstAccountPage(token));
  });

  app.post(firstAccountPath, async (c) => {
    c.header("Cache-Control", "no-store");
    const field = await readFormFields(c);
    if (field === undefined) return c.html(unreadableFormPage(), 400);
    const token = field("token");
    if (!context.firstAccountLinks.isLive(token)) return linkSpent(c);
    const email = field("email").trim();
    if (!isDeliverableEmailAddress(email)) {
      return c.html(firstAccountPage(token, "Enter your email address, like you@example.com."), 400);
    }
    if (!context.firstAccountLinks.spend(token)) return linkSpent(c);
    const opened = await openFirstAccountSession(database.db, { clock, ids }, email);
    if (opened === undefined) return linkSpent(c);
    cookies.write(c, studioSessionCookie, opened.token);
    return c.redirect(`${basePathOf(config.baseUrl)}/studio/`, 303);
  });

  app.get(`${studioPath}/api/sign-in/link`, async (c) => {
    const redeemed = await redeemSignInLink(database.db, { clock, ids }, c.req.query("token") ?? "");
    c.header("Cache-Control", "no-store");
    if (redeemed === undefined) {
      return c.html(
        messagePage(
          "This sign-in link no longer works",
          "A sign-in link works once, for 15 minutes. Open Weft Studio and sign in with your email address.",
        ),
        400,
      );
    }
    cookies.write(c, studioSessionCookie, redeemed.token);
    // The public path, even when a proxy stripped the base path from this request.
    return c.redirect(`${basePathOf(config.baseUrl)}/studio/`, 303);
  });

  return app;
}
