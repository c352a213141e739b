/**
 * An error answered by the authorization server's registration, claim or revoke endpoints:
 * `code` is the endpoint's error (`invalid_grant`, `rate_limited`...), `message` its description.
 */
export class RegistrationError extends Error {
  readonly code: string;
  readonly status: number;
  /** Seconds to wait before retrying, when the server said (`rate_limited`). */
  readonly retryAfterSeconds: number | undefined;

  constructor(options: { code: string; message: string; status: number; retryAfterSeconds?: number | undefined }) {
    super(options.message);
    this.name = "RegistrationError";
    this.code = options.code;
    this.status = options.status;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}
