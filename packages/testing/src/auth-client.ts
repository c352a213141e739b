/** Small HTTP helpers for authorization-server tests: they speak the wire format, nothing more. */

export interface JsonResponse {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<JsonResponse> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

export function emailRegistration(email: string) {
  return {
    type: "identity_assertion",
    assertion_type: "verified_email",
    assertion: email,
    requested_credential_type: "api_key",
  };
}

export function idJagRegistration(assertion: string) {
  return {
    type: "identity_assertion",
    assertion_type: "urn:ietf:params:oauth:token-type:id-jag",
    assertion,
    requested_credential_type: "api_key",
  };
}

export interface PageResponse {
  status: number;
  html: string;
  headers: Headers;
}

export async function getPage(url: string): Promise<PageResponse> {
  const response = await fetch(url);
  return { status: response.status, html: await response.text(), headers: response.headers };
}

export function csrfTokenOf(html: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(html);
  if (match?.[1] === undefined) throw new Error("no CSRF field on the page");
  return match[1];
}

/** Submits the approval page's form as a browser would (urlencoded, no JavaScript). */
export async function submitDecision(url: string, fields: Record<string, string>): Promise<PageResponse> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: response.status, html: await response.text(), headers: response.headers };
}

/** Opens the approval link, then presses a button with the page's CSRF token. */
export async function decide(link: string, decision: "approve" | "deny" | "revoke"): Promise<PageResponse> {
  const page = await getPage(link);
  return submitDecision(link, { csrf: csrfTokenOf(page.html), decision });
}

export function claimCodeOf(html: string): string {
  const match = /id="claim-code"[^>]*>(\d{6})</.exec(html);
  if (match?.[1] === undefined) throw new Error("no claim code on the page");
  return match[1];
}

export async function whoAmI(baseUrl: string, credential: string): Promise<JsonResponse> {
  const response = await fetch(`${baseUrl}/agent/auth/credential`, {
    headers: { authorization: `Bearer ${credential}` },
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** The environment of a platform that signs many people up in its tests: no rate limit on registering or claiming. */
export const unthrottledSignUpEnv: Record<string, string> = {
  WEFT_RATE_LIMIT_REGISTER: "10000",
  WEFT_RATE_LIMIT_CLAIM: "10000",
};

/** The event schema host of the platforms that logout-token tests start (WEFT_EVENT_SCHEMA_HOST). */
export const testEventSchemaHost = "https://schemas.example.com";

/** The event a logout token carries to revoke an identity assertion's delegation, under `testEventSchemaHost`. */
export const assertionRevokedEvent = `${testEventSchemaHost}/events/agent/auth/identity/assertion/revoked`;

/** The environment of a platform that takes logout tokens, with no rate limit on registering or revoking in the tests' way. */
export const logoutTokenPlatformEnv: Record<string, string> = {
  WEFT_EVENT_SCHEMA_HOST: testEventSchemaHost,
  WEFT_RATE_LIMIT_REGISTER: "10000",
  WEFT_RATE_LIMIT_REVOKE: "10000",
};

/** A logout token posted to `{url}/agent/auth/revoke` as `application/logout+jwt`, as an identity provider sends it. */
export async function postLogoutToken(
  url: string,
  token: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${url}/agent/auth/revoke`, {
    method: "POST",
    headers: { "content-type": "application/logout+jwt" },
    body: token,
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}
