import { type Context, Hono, type MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { acceptedSecretKeys } from "../../config/secret-key.ts";
import type { AppEnv } from "../../http/app-env.ts";
import type { ClientIpResolver } from "../../http/client-ip.ts";
import { readFormFields } from "../../http/form-fields.ts";
import { allowFormActionTo } from "../../http/security-headers.ts";
import type { PlatformContext } from "../../platform-context.ts";
import { basePathOf } from "../../shared/base-path.ts";
import { approvalCsrfTokenIsValidUnder, issueApprovalCsrfToken } from "../approval-csrf.ts";
import { noStorePage } from "../link-page.ts";
import { messagePage, unreadableFormPage } from "../pages/approval-pages.ts";
import { checkMailPage, consentPage, enterCodePage, signInPage } from "../pages/oauth-pages.ts";
import { claimTokenLifetimeMs, registerWithEmail } from "../register-with-email.ts";
import { type AuthorizationRequest, parseAuthorizationRequest, redirectWith } from "./authorization-request.ts";
import type { ClientMetadataDocuments } from "./client-metadata-documents.ts";
import { clientLabel } from "./clients.ts";
import { confirmSignInCode, normalizeSignInCode } from "./confirm-sign-in-code.ts";
import { redirectHostOf } from "./redirect-uri.ts";
import { decideAuthorization, signInCookieName, signInState } from "./sign-in.ts";
import { signInRequesterOf } from "./sign-in-requester.ts";

/** The CSP source of a redirect URI: its origin, or its scheme alone for an app's private-use scheme. */
function redirectSourceOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.origin === "null" ? url.protocol : url.origin;
}

/**
 * `GET|POST {auth_url}/oauth2/authorize`: the authorization code flow's page. GET shows where the
 * person stands (sign in, check mail, type the code, consent) and changes nothing; its forms post
 * back to the same URL: step `sign-in` mails the approval link, step `code` takes the code an
 * approval in another browser showed, step `consent` answers the client with a code or
 * `access_denied`. `limitSignIn` holds sign-ins to the registration rate, since each sends a mail.
 */
export function authorizeRoutes(
  context: PlatformContext,
  documents: ClientMetadataDocuments,
  limitSignIn: MiddlewareHandler<AppEnv>,
  clientIps: ClientIpResolver,
): Hono<AppEnv> {
  const { database, clock, ids, config } = context;
  const keys = () => acceptedSecretKeys(config);
  const cookiePath = `${basePathOf(config.authUrl)}/oauth2/`;
  const app = new Hono<AppEnv>();

  /** The sign-in form's CSRF token is bound to the request, the code and consent forms' to the sign-in. */
  const signInBinding = (c: Context<AppEnv>) => `oauth-authorize:${new URL(c.req.url).search}`;
  const signInToken = (c: Context<AppEnv>) => getCookie(c, signInCookieName);

  /** The page for where this browser's sign-in stands; a `problem` is shown on it, with a 400. */
  async function show(c: Context<AppEnv>, request: AuthorizationRequest, problem?: string): Promise<Response> {
    const now = clock.now();
    const token = signInToken(c);
    const state = await signInState(database.db, clock, token, request.client.clientId);
    const clientName = clientLabel(request.client);
    const signInCsrf = () => issueApprovalCsrfToken(config.secretKey, signInBinding(c), now);
    const status = problem === undefined ? 200 : 400;
    if (token === undefined || state.kind === "none" || state.kind === "code-spent") {
      const spent = "The code from the approval expired or was typed wrong too often. Sign in again.";
      const shown = problem ?? (state.kind === "code-spent" ? spent : undefined);
      return noStorePage(c, signInPage(clientName, signInCsrf(), shown), status);
    }
    const codeCsrf = issueApprovalCsrfToken(config.secretKey, token, now);
    if (state.kind === "awaiting-approval") {
      return noStorePage(c, checkMailPage(state.email, { signInCsrf: signInCsrf(), codeCsrf }, problem), status);
    }
    if (state.kind === "awaiting-code") return noStorePage(c, enterCodePage(state.email, codeCsrf, problem), status);
    // Signed in: whatever was asked, what is left is to consent.
    allowFormActionTo(c, redirectSourceOf(request.redirectUri));
    const details = {
      clientName,
      redirectHost: redirectHostOf(request.redirectUri),
      scopes: request.scopes,
      email: state.email,
    };
    return noStorePage(c, consentPage(details, codeCsrf));
  }

  async function parse(c: Context<AppEnv>) {
    const parsed = await parseAuthorizationRequest(
      database.db,
      documents,
      new URL(c.req.url).searchParams,
      config.baseUrl,
    );
    if (parsed.kind === "unsafe") {
      return { response: noStorePage(c, messagePage("Cannot authorize this application", parsed.message), 400) };
    }
    if (parsed.kind === "refused") {
      const { redirectUri, error, description, state } = parsed;
      const target = redirectWith(redirectUri, { error, error_description: description, state, iss: config.authUrl });
      return { response: c.redirect(target, c.req.method === "GET" ? 302 : 303) };
    }
    return { request: parsed.request };
  }

  /** Step `code`: a malformed code counts no attempt; a wrong one does, and says how many are left. */
  async function enterCode(
    c: Context<AppEnv>,
    request: AuthorizationRequest,
    token: string,
    typed: string,
  ): Promise<Response> {
    const code = normalizeSignInCode(typed);
    if (code === undefined) return show(c, request, "Type the 6 digits the approval page shows, like 123456.");
    const confirmed = await confirmSignInCode(
      database.db,
      { clock, ids, secretKeys: keys() },
      { signInToken: token, clientId: request.client.clientId, code },
    );
    switch (confirmed.kind) {
      case "confirmed":
        return show(c, request);
      case "wrong":
        return show(
          c,
          request,
          confirmed.attemptsLeft > 0
            ? `That is not the code the approval page shows. Tries left: ${confirmed.attemptsLeft}.`
            : "That is not the code the approval page shows, and it was the last try. Sign in again.",
        );
      case "expired":
        return show(c, request, "The code expired. Sign in again.");
      case "no-code":
        return show(
          c,
          request,
          "This sign-in has no code waiting: approve the link in the mail first, or sign in again.",
        );
    }
  }

  app.get("/oauth2/authorize", async (c) => {
    const parsed = await parse(c);
    return parsed.request === undefined ? parsed.response : show(c, parsed.request);
  });

  app.post("/oauth2/authorize", limitSignIn, async (c) => {
    const parsed = await parse(c);
    if (parsed.request === undefined) return parsed.response;
    const request = parsed.request;
    const field = await readFormFields(c);
    if (field === undefined) return noStorePage(c, unreadableFormPage(), 400);
    const outOfDate = () =>
      noStorePage(
        c,
        messagePage("Please try again", "This form is out of date. Go back to the application and start again."),
        403,
      );
    const now = clock.now();
    if (field("step") === "sign-in") {
      if (!approvalCsrfTokenIsValidUnder(keys(), signInBinding(c), field("csrf"), now)) return outOfDate();
      const registered = await registerWithEmail(
        database.db,
        { clock, ids, mailer: context.mailer, authUrl: config.authUrl },
        {
          email: field("email"),
          agentDescription: clientLabel(request.client),
          oauth: {
            clientId: request.client.clientId,
            redirectHost: redirectHostOf(request.redirectUri),
            scopes: request.scopes,
            returnUrl: `${config.authUrl}/oauth2/authorize${new URL(c.req.url).search}`,
            requester: signInRequesterOf(c, clientIps),
          },
        },
      );
      if (!registered.ok) return show(c, request, "Enter your email address, like you@example.com.");
      setCookie(c, signInCookieName, registered.value.claimToken, {
        path: cookiePath,
        httpOnly: true,
        secure: config.authUrl.startsWith("https:"),
        sameSite: "Lax",
        maxAge: claimTokenLifetimeMs / 1000,
      });
      const forms = {
        signInCsrf: issueApprovalCsrfToken(config.secretKey, signInBinding(c), now),
        codeCsrf: issueApprovalCsrfToken(config.secretKey, registered.value.claimToken, now),
      };
      return noStorePage(c, checkMailPage(field("email").trim(), forms));
    }
    const token = signInToken(c);
    const step = field("step");
    if ((step !== "code" && step !== "consent") || token === undefined) return outOfDate();
    if (!approvalCsrfTokenIsValidUnder(keys(), token, field("csrf"), now)) return outOfDate();
    if (step === "code") return enterCode(c, request, token, field("code"));
    const decision = field("decision");
    if (decision !== "approve" && decision !== "deny") {
      return noStorePage(c, messagePage("Choose an answer", "Use the Allow or Deny button on the page."), 400);
    }
    const decided = await decideAuthorization(database.db, { clock, ids }, { signInToken: token, request, decision });
    if (!decided.ok) return show(c, request, decided.refusal.description);
    const answer =
      "code" in decided.value
        ? { code: decided.value.code }
        : { error: "access_denied", error_description: "The person denied the request." };
    c.header("Cache-Control", "no-store");
    return c.redirect(redirectWith(request.redirectUri, { ...answer, state: request.state, iss: config.authUrl }), 303);
  });

  return app;
}
