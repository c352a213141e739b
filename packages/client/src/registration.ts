import { type AgentAuthEndpoints, discoveryError } from "./discover.ts";
import { RegistrationError } from "./registration-error.ts";

export const idJagAssertionType = "urn:ietf:params:oauth:token-type:id-jag";

/** A credential, issued at once (ID-JAG) or on a successful claim. */
export interface IssuedCredential {
  registrationId: string;
  credentialType: "api_key";
  /** The bearer secret: keep it private. */
  credential: string;
  credentialExpires: Date;
  scopes: string[];
}

/** An email registration waiting for the user's approval. */
export interface PendingRegistration {
  registrationId: string;
  claimUrl: string;
  /** Secret (`clm_…`): send it back with the user's 6-digit code. */
  claimToken: string;
  claimTokenExpires: Date;
  postClaimScopes: string[];
}

interface RequestOptions {
  fetch?: typeof fetch;
  /** Sent as `User-Agent`, which the approval page shows the user. */
  agentName?: string;
}

/** A JSON body, or the form parameters of an OAuth token request (RFC 6749 §3.2). */
type RequestBody = Record<string, unknown> | URLSearchParams;

async function post(
  url: string,
  body: RequestBody,
  options: RequestOptions,
  expected: number[],
): Promise<Record<string, unknown>> {
  const form = body instanceof URLSearchParams;
  const response = await (options.fetch ?? fetch)(url, {
    method: "POST",
    headers: {
      "content-type": form ? "application/x-www-form-urlencoded" : "application/json",
      accept: "application/json",
      ...(options.agentName === undefined ? {} : { "user-agent": options.agentName }),
    },
    body: form ? body.toString() : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = text === "" ? {} : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const record = typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
  if (expected.includes(response.status) && record !== undefined) return record;
  const retryAfter = Number(response.headers.get("retry-after"));
  throw new RegistrationError({
    code: typeof record?.error === "string" ? record.error : "unexpected_response",
    message:
      typeof record?.error_description === "string"
        ? record.error_description
        : `POST ${url} answered ${response.status}.`,
    status: response.status,
    retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  });
}

function field<T>(record: Record<string, unknown>, key: string, check: (value: unknown) => value is T): T {
  const value = record[key];
  if (!check(value)) {
    throw new RegistrationError({
      code: "unexpected_response",
      message: `The response lacks a valid ${key}.`,
      status: 0,
    });
  }
  return value;
}

const isString = (value: unknown): value is string => typeof value === "string";
const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every(isString);

function toIssuedCredential(record: Record<string, unknown>): IssuedCredential {
  return {
    registrationId: field(record, "registration_id", isString),
    credentialType: "api_key",
    credential: field(record, "credential", isString),
    credentialExpires: new Date(field(record, "credential_expires", isString)),
    scopes: field(record, "scopes", isStrings),
  };
}

/** Registers with an ID-JAG identity assertion; the credential is issued at once. */
export async function registerWithIdJag(
  endpoints: Pick<AgentAuthEndpoints, "registerUri">,
  assertion: string,
  options: RequestOptions = {},
): Promise<IssuedCredential> {
  const record = await post(
    endpoints.registerUri,
    {
      type: "identity_assertion",
      assertion_type: idJagAssertionType,
      assertion,
      requested_credential_type: "api_key",
    },
    options,
    [201],
  );
  return toIssuedCredential(record);
}

/** Registers with the user's email; the user approves from an email and reads a 6-digit code back. */
export async function registerWithEmail(
  endpoints: Pick<AgentAuthEndpoints, "registerUri">,
  email: string,
  options: RequestOptions = {},
): Promise<PendingRegistration> {
  const record = await post(
    endpoints.registerUri,
    {
      type: "identity_assertion",
      assertion_type: "verified_email",
      assertion: email,
      requested_credential_type: "api_key",
    },
    options,
    [201],
  );
  return {
    registrationId: field(record, "registration_id", isString),
    claimUrl: field(record, "claim_url", isString),
    claimToken: field(record, "claim_token", isString),
    claimTokenExpires: new Date(field(record, "claim_token_expires", isString)),
    postClaimScopes: field(record, "post_claim_scopes", isStrings),
  };
}

/**
 * Exchanges the claim token and the user's 6-digit code for the credential, at the claim endpoint
 * the server advertises: without one, `discovery_failed` and nothing is sent.
 */
export async function completeClaim(
  endpoints: Pick<AgentAuthEndpoints, "claimUri">,
  claim: { claimToken: string; otp: string },
  options: RequestOptions = {},
): Promise<IssuedCredential & { status: "claimed" }> {
  if (endpoints.claimUri === undefined) {
    throw discoveryError(
      "The authorization server advertises no claim endpoint (agent_auth.claim_uri of its metadata), so a registration cannot be claimed there.",
    );
  }
  const record = await post(endpoints.claimUri, { claim_token: claim.claimToken, otp: claim.otp }, options, [200, 201]);
  return { ...toIssuedCredential(record), status: "claimed" };
}

/** Revokes a credential; it stops working at once. */
export async function revokeCredential(
  endpoints: Pick<AgentAuthEndpoints, "revocationUri">,
  credential: string,
  options: RequestOptions = {},
): Promise<void> {
  await post(endpoints.revocationUri, { credential }, options, [200, 204]);
}

export const tokenExchangeGrantType = "urn:ietf:params:oauth:grant-type:token-exchange";
export const jwtTokenType = "urn:ietf:params:oauth:token-type:jwt";

/** A project-scoped credential from a token exchange. */
export interface ExchangedToken {
  /** The bearer secret: keep it private. */
  accessToken: string;
  expiresAt: Date;
  scopes: string[];
}

const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);

/**
 * RFC 8693 token exchange: an identity provider's JWT (a CI job's OIDC token) for a short-lived
 * credential of one project, under the project's federation policies. `audience` is the project id;
 * `scope` (space-separated) narrows what the policy grants.
 */
export async function exchangeToken(
  endpoints: { tokenUri: string },
  request: { subjectToken: string; audience: string; scope?: string; subjectTokenType?: string },
  options: RequestOptions & { now?: () => Date } = {},
): Promise<ExchangedToken> {
  const parameters = new URLSearchParams({
    grant_type: tokenExchangeGrantType,
    subject_token: request.subjectToken,
    subject_token_type: request.subjectTokenType ?? jwtTokenType,
    audience: request.audience,
    ...(request.scope === undefined ? {} : { scope: request.scope }),
  });
  const record = await post(endpoints.tokenUri, parameters, options, [200]);
  const scope = record.scope;
  return {
    accessToken: field(record, "access_token", isString),
    expiresAt: new Date((options.now?.() ?? new Date()).getTime() + field(record, "expires_in", isNumber) * 1000),
    scopes: typeof scope === "string" ? scope.split(" ").filter((name) => name !== "") : [],
  };
}
