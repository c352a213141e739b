/**
 * Every error code of the registration, claim and revoke endpoints, of the token
 * endpoint (RFC 6749 §5.2, RFC 8693 §2.2.2), of token revocation (RFC 7009 §2.2.1) and of client
 * registration (RFC 7591 §3.2.2).
 */
export const authErrorCodes = [
  "invalid_request",
  "unsupported_identity_type",
  "unsupported_assertion_type",
  "unsupported_credential_type",
  "rate_limited",
  "invalid_grant",
  "issuer_not_enabled",
  "invalid_assertion",
  "invalid_client_id",
  "missing_verified_email",
  "replay_detected",
  "server_error",
  "invalid_target",
  "unsupported_grant_type",
  "invalid_scope",
  "invalid_client",
  "invalid_redirect_uri",
  "invalid_client_metadata",
  "unsupported_token_type",
] as const;
export type AuthErrorCode = (typeof authErrorCodes)[number];

/**
 * What an authorization server service answers (verifying an assertion, registering, claiming,
 * revoking): the surface's own refusal codes, as values, so that the route decides what to do with
 * each; `authErrorResponse` in `auth-http.ts` is the one place that turns a refusal into a body.
 */
export type AuthResult<T> = { ok: true; value: T } | { ok: false; refusal: AuthRefusal };

export interface AuthRefusal {
  code: AuthErrorCode;
  description: string;
}

export function refuse(code: AuthErrorCode, description: string): { ok: false; refusal: AuthRefusal } {
  return { ok: false, refusal: { code, description } };
}

/**
 * A refusal thrown by the routes' own request parsing (`readJsonObject`, `requireString`), which
 * `authHandler` answers like a service's refusal.
 */
export class AuthError extends Error {
  override readonly name = "AuthError";
  readonly code: AuthErrorCode;

  constructor(code: AuthErrorCode, description: string) {
    super(description);
    this.code = code;
  }
}

/** 400 for every code except `rate_limited` (429) and `server_error` (500). */
export function authErrorStatus(code: AuthErrorCode): 400 | 429 | 500 {
  if (code === "rate_limited") return 429;
  if (code === "server_error") return 500;
  return 400;
}
