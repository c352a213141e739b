import { type Context, Hono, type MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { acceptedSecretKeys } from "../../config/secret-key.ts";
import type { AppEnv } from "../../http/app-env.ts";
import { readFormFields } from "../../http/form-fields.ts";
import { allowFormActionTo } from "../../http/security-headers.ts";
import type { PlatformContext } from "../../platform-context.ts";
import { basePathOf } from "../../shared/base-path.ts";
import { approvalCsrfTokenIsValidUnder, issueApprovalCsrfToken } from "../approval-csrf.ts";
import { messagePage, unreadableFormPage } from "../pages/approval-pages.ts";
import { checkMailPage, consentPage, signInPage } from "../pages/oauth-pages.ts";
import { claimTokenLifetimeMs, registerWithEmail } from "../register-with-email.ts";
import { type AuthorizationRequest, parseAuthorizationRequest, redirectWith } from "./authorization-request.ts";
import type { ClientMetadataDocuments } from "./client-metadata-documents.ts";
import { clientLabel } from "./clients.ts";
import { decideAuthorization, signInState } from "./sign-in.ts";

const signInCookie = "weft_oauth_sign_in";

function htmlPage(c: Context<AppEnv>, body: string, status: 200 | 400 | 403 = 200): Response {
  c.header("Cache-Control", "no-store");
  return c.html(body, status);
}

function redirectHostOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.host === "" ? url.protocol : url.host;
}

/** The CSP source of a redirect URI: its origin, or its scheme alone for an app's private-use scheme. */
function redirectSourceOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.origin === "null" ? url.protocol : url.origin;
}

/**
 * `GET|POST {auth_url}/oauth2/authorize`: the authorization code flow's page. GET shows where the
 * person stands (sign in, check mail, consent) and changes nothing; its form posts back to the same
 * URL: step `sign-in` mails the approval link, step `consent` answers the client with a code or
 * `access_denied`. `limitSignIn` holds sign-ins to the registration rate, since each sends a mail.
 */
export function authorizeRoutes(
  context: PlatformContext,
  documents: ClientMetadataDocuments,
  limitSignIn: MiddlewareHandler<AppEnv>,
): Hono<AppEnv> {
  const { database, clock, ids, config } = context;
  const keys = () => acceptedSecretKeys(config);
  const cookiePath = `${basePathOf(config.authUrl)}/oauth2/`;
  const app = new Hono<AppEnv>();

  /** The sign-in form's CSRF token is bound to the request, the consent form's to the sign-in. */
  const signInBinding = (c: Context<AppEnv>) => `oauth-authorize:${new URL(c.req.url).search}`;
  const signInToken = (c: Context<AppEnv>) => getCookie(c, signInCookie);

  async function show(c: Context<AppEnv>, request: AuthorizationRequest, problem?: string): Promise<Response> {
    const now = clock.now();
    const token = signInToken(c);
    const state = await signInState(database.db, clock, token, request.client.clientId);
    const clientName = clientLabel(request.client);
    const signInCsrf = () => issueApprovalCsrfToken(config.secretKey, signInBinding(c), now);
    if (state.kind === "awaiting-approval") return htmlPage(c, checkMailPage(state.email, signInCsrf()));
    if (state.kind === "signed-in" && token !== undefined) {
      allowFormActionTo(c, redirectSourceOf(request.redirectUri));
      const details = {
        clientName,
        redirectHost: redirectHostOf(request.redirectUri),
        scopes: request.scopes,
        email: state.email,
      };
      return htmlPage(c, consentPage(details, issueApprovalCsrfToken(config.secretKey, token, now)));
    }
    return htmlPage(c, signInPage(clientName, signInCsrf(), problem), problem === undefined ? 200 : 400);
  }

  async function parse(c: Context<AppEnv>) {
    const parsed = await parseAuthorizationRequest(
      database.db,
      documents,
      new URL(c.req.url).searchParams,
      config.baseUrl,
    );
    if (parsed.kind === "unsafe") {
      return { response: htmlPage(c, messagePage("Cannot authorize this application", parsed.message), 400) };
    }
    if (parsed.kind === "refused") {
      const { redirectUri, error, description, state } = parsed;
      const target = redirectWith(redirectUri, { error, error_description: description, state, iss: config.authUrl });
      return { response: c.redirect(target, c.req.method === "GET" ? 302 : 303) };
    }
    return { request: parsed.request };
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
    if (field === undefined) return htmlPage(c, unreadableFormPage(), 400);
    const outOfDate = () =>
      htmlPage(
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
            scopes: request.scopes,
            returnUrl: `${config.authUrl}/oauth2/authorize${new URL(c.req.url).search}`,
          },
        },
      );
      if (!registered.ok) return show(c, request, "Enter your email address, like you@example.com.");
      setCookie(c, signInCookie, registered.value.claimToken, {
        path: cookiePath,
        httpOnly: true,
        secure: config.authUrl.startsWith("https:"),
        sameSite: "Lax",
        maxAge: claimTokenLifetimeMs / 1000,
      });
      const nextCsrf = issueApprovalCsrfToken(config.secretKey, signInBinding(c), now);
      return htmlPage(c, checkMailPage(field("email").trim(), nextCsrf));
    }
    const token = signInToken(c);
    if (field("step") !== "consent" || token === undefined) return outOfDate();
    if (!approvalCsrfTokenIsValidUnder(keys(), token, field("csrf"), now)) return outOfDate();
    const decision = field("decision");
    if (decision !== "approve" && decision !== "deny") {
      return htmlPage(c, messagePage("Choose an answer", "Use the Allow or Deny button on the page."), 400);
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
