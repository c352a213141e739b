import { createHmac } from "node:crypto";
import { secretsEqual } from "../../shared/secrets.ts";

/**
 * The CSRF token of a session: an HMAC (platform secret key) of its id, so nothing is stored, it
 * lives exactly as long as the session, and a token of one session is useless with another. The
 * prefix lets secret scanners recognise one.
 */
export function studioCsrfToken(key: Buffer, sessionId: string): string {
  return `wsc_${createHmac("sha256", key).update(`studio-csrf:${sessionId}`).digest("base64url")}`;
}

/** Whether `presented` is the session's token under any accepted key (current, or the one before a rotation). */
export function studioCsrfTokenIsValid(keys: readonly Buffer[], sessionId: string, presented: string | undefined) {
  if (presented === undefined) return false;
  return keys.some((key) => secretsEqual(presented, studioCsrfToken(key, sessionId)));
}
