import { createHash, randomBytes } from "node:crypto";
import { csrfTokenOf } from "./auth-client.ts";
import { registerSecret } from "./log-capture.ts";
import type { SmtpSink } from "./smtp-sink.ts";

/** A PKCE pair (RFC 7636, S256). */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
}

export async function registerOAuthClient(
  authUrl: string,
  metadata: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${authUrl}/oauth2/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(metadata),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

export function authorizeUrl(authUrl: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(`${authUrl}/oauth2/authorize`);
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) url.searchParams.set(name, value);
  return url.href;
}

/**
 * An authorization-code request with a fresh PKCE pair (S256): the authorize URL a client opens and
 * the verifier that redeems its code. `parameters` holds the client's own (client_id, redirect_uri,
 * state, scope…) and may override or, with undefined, leave out the PKCE ones.
 */
export function codeRequest(
  authUrl: string,
  parameters: Record<string, string | undefined>,
): { url: string; verifier: string } {
  const { verifier, challenge } = pkcePair();
  const url = authorizeUrl(authUrl, {
    response_type: "code",
    code_challenge: challenge,
    code_challenge_method: "S256",
    ...parameters,
  });
  return { url, verifier };
}

/** An authorization code a client got, with what its token request must repeat and the PKCE verifier. */
export interface AuthorizedCode {
  clientId: string;
  code: string;
  redirectUri: string;
  verifier: string;
}

/** Redeems an authorization code with its PKCE verifier at the token endpoint; `overrides` changes any parameter. */
export function redeemCode(
  authUrl: string,
  code: AuthorizedCode,
  overrides: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, string> }> {
  return requestToken(authUrl, {
    grant_type: "authorization_code",
    client_id: code.clientId,
    code: code.code,
    redirect_uri: code.redirectUri,
    code_verifier: code.verifier,
    ...overrides,
  });
}

/** `POST {auth_url}/oauth2/token` with a form body; registers the tokens it gets as secrets. */
export async function requestToken(
  authUrl: string,
  parameters: Record<string, string>,
): Promise<{ status: number; body: Record<string, string> }> {
  const response = await fetch(`${authUrl}/oauth2/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(parameters).toString(),
  });
  const body = (await response.json()) as Record<string, string>;
  for (const name of ["access_token", "refresh_token"]) if (body[name] !== undefined) registerSecret(body[name]);
  return { status: response.status, body };
}

/**
 * `POST {auth_url}/oauth2/revoke` (RFC 7009) with a form body: the status, and the body as JSON, or
 * null when it is empty as a success's is.
 */
export async function revokeToken(
  authUrl: string,
  parameters: Record<string, string>,
): Promise<{ status: number; body: Record<string, string> | null }> {
  const response = await post(`${authUrl}/oauth2/revoke`, "", parameters);
  const text = await response.text();
  return { status: response.status, body: text === "" ? null : (JSON.parse(text) as Record<string, string>) };
}

async function post(url: string, cookie: string, fields: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams(fields).toString(),
  });
}

export function signInCodeOf(html: string): string {
  const match = /id="sign-in-code"[^>]*>(\d{6})</.exec(html);
  if (match?.[1] === undefined) throw new Error("no sign-in code on the page");
  return match[1];
}

/** The authorize page's first step: mails the approval link; returns the sign-in cookie and the check-mail page. */
export async function startSignIn(
  url: string,
  email: string,
): Promise<{ cookie: string; checkMailHtml: string; status: number }> {
  const signIn = await (await fetch(url)).text();
  const sent = await post(url, "", { step: "sign-in", csrf: csrfTokenOf(signIn), email });
  const cookie = (sent.headers.get("set-cookie") ?? "").split(";")[0] as string;
  if (!cookie.startsWith("weft_oauth_sign_in=")) throw new Error(`no sign-in cookie (status ${sent.status})`);
  return { cookie, checkMailHtml: await sent.text(), status: sent.status };
}

/** Presses Approve on the mailed link's page, sending `cookie` as the approving browser's (none: another browser). */
export async function approveSignIn(link: string, cookie = ""): Promise<Response> {
  const approvalPage = await (await fetch(link, { headers: { cookie } })).text();
  return post(link, cookie, { csrf: csrfTokenOf(approvalPage), decision: "approve" });
}

/** Types a code on the authorize page, as the browser holding `cookie`; the page's CSRF token comes from `pageHtml`. */
export function typeSignInCode(url: string, cookie: string, pageHtml: string, code: string): Promise<Response> {
  return post(url, cookie, { step: "code", csrf: csrfTokenOf(pageHtml), code });
}

/**
 * The authorize page as a browser without JavaScript uses it: sign in with an email, approve the
 * mailed link, come back signed in. By default the link is approved in another browser, whose
 * code is then typed on the authorize page; `sameBrowser` approves it with the sign-in cookie,
 * which leads straight back. Returns the sign-in cookie and the consent page.
 */
export async function signInForAuthorization(
  url: string,
  email: string,
  smtp: SmtpSink,
  options: { sameBrowser?: boolean } = {},
): Promise<{ cookie: string; consentHtml: string }> {
  const { cookie, checkMailHtml } = await startSignIn(url, email);
  const link = smtp.approvalLinkFor(email);
  const approved = await approveSignIn(link, options.sameBrowser === true ? cookie : "");
  if (options.sameBrowser === true) {
    if (approved.status !== 303 || approved.headers.get("location") !== url) {
      throw new Error(`approval did not lead back to the authorize page (status ${approved.status})`);
    }
    return { cookie, consentHtml: await (await fetch(url, { headers: { cookie } })).text() };
  }
  if (approved.status !== 200) throw new Error(`approval showed no code (status ${approved.status})`);
  const typed = await typeSignInCode(url, cookie, checkMailHtml, signInCodeOf(await approved.text()));
  if (typed.status !== 200) throw new Error(`the code did not sign the browser in (status ${typed.status})`);
  return { cookie, consentHtml: await typed.text() };
}

/** Presses Allow or Deny on the consent page; returns where the authorization server redirects. */
export async function answerConsent(
  url: string,
  session: { cookie: string; consentHtml: string },
  decision: "approve" | "deny",
): Promise<{ status: number; location: URL | undefined }> {
  const response = await post(url, session.cookie, {
    step: "consent",
    csrf: csrfTokenOf(session.consentHtml),
    decision,
  });
  const location = response.headers.get("location");
  return { status: response.status, location: location === null ? undefined : new URL(location) };
}

/**
 * A person allows an authorization request in a browser without JavaScript: signs in with `email`
 * (`signInForAuthorization`) and presses Allow. Returns the redirect to the client, with its code.
 */
export async function allowAuthorization(url: string, email: string, smtp: SmtpSink): Promise<URL> {
  const answer = await answerConsent(url, await signInForAuthorization(url, email, smtp), "approve");
  if (answer.status !== 303 || answer.location === undefined) {
    throw new Error(`the consent did not redirect to the client (status ${answer.status})`);
  }
  return answer.location;
}

/**
 * A code for `clientId`, allowed by the person of `email`: a fresh authorization-code request
 * (`codeRequest`) allowed through `allowAuthorization`, its `state` checked on the way back.
 */
export async function authorizedCode(
  authUrl: string,
  smtp: SmtpSink,
  request: { clientId: string; redirectUri: string; email: string; state: string; scope?: string },
): Promise<AuthorizedCode> {
  const { url, verifier } = codeRequest(authUrl, {
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    state: request.state,
    scope: request.scope,
  });
  const location = await allowAuthorization(url, request.email, smtp);
  if (location.searchParams.get("state") !== request.state) {
    throw new Error(`the redirect carries state ${location.searchParams.get("state")}, not ${request.state}`);
  }
  const code = location.searchParams.get("code");
  if (code === null) throw new Error(`the redirect carries no code: ${location.href}`);
  return { clientId: request.clientId, code, redirectUri: request.redirectUri, verifier };
}
