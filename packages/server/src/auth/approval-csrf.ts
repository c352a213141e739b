import { createHmac } from "node:crypto";
import { hashSecret, secretsEqual } from "../shared/secrets.ts";

/** Longer than an approval link lives, so a page left open shows "expired" rather than a CSRF failure. */
const csrfLifetimeMs = 60 * 60 * 1000;

function signature(key: Buffer, approvalToken: string, expiresAtMs: number): string {
  return createHmac("sha256", key)
    .update(`approval-csrf:${hashSecret(approvalToken)}:${expiresAtMs}`)
    .digest("base64url");
}

/**
 * A stateless CSRF token for the approval form: an expiry and an HMAC (platform secret key) over it
 * and the approval link it belongs to, so it is useless on any other link.
 */
export function issueApprovalCsrfToken(key: Buffer, approvalToken: string, now: Date): string {
  const expiresAtMs = now.getTime() + csrfLifetimeMs;
  return `${expiresAtMs}.${signature(key, approvalToken, expiresAtMs)}`;
}

export function approvalCsrfTokenIsValid(key: Buffer, approvalToken: string, presented: string, now: Date): boolean {
  const match = /^(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(presented);
  if (match === null) return false;
  const expiresAtMs = Number(match[1]);
  const valid = secretsEqual(match[2] as string, signature(key, approvalToken, expiresAtMs));
  return valid && now.getTime() < expiresAtMs;
}

/** `approvalCsrfTokenIsValid` under any of the keys (the current one, and the one before a rotation). */
export function approvalCsrfTokenIsValidUnder(
  keys: readonly Buffer[],
  approvalToken: string,
  presented: string,
  now: Date,
): boolean {
  return keys.some((key) => approvalCsrfTokenIsValid(key, approvalToken, presented, now));
}
