import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { derivePurposeKey } from "../shared/purpose-key.ts";

/**
 * Stateless CSRF tokens for hosted forms: `<expires>.<nonce>.<mac>`, where the MAC (HMAC-SHA-256
 * under a key derived from WEFT_SECRET_KEY) covers the project, the form, the expiry and the
 * nonce. Any process holding the same secret key can check a token; no session is stored.
 */

/** How long a rendered form can be submitted. */
export const csrfTokenLifetimeMs = 2 * 60 * 60 * 1000;

/** The name of the hidden field that carries the token. */
export const csrfFieldName = "_csrf";

export interface CsrfBinding {
  projectId: string;
  formName: string;
}

export type CsrfCheck =
  | { ok: true; nonce: string }
  | { ok: false; reason: "missing" | "malformed" | "forged" | "expired" };

/** A purpose-specific key, so the secret key itself never signs anything directly. */
export function deriveCsrfKey(secretKey: Buffer): Buffer {
  return derivePurposeKey(secretKey, "weft hosted-form csrf v1");
}

function mac(key: Buffer, binding: CsrfBinding, expires: string, nonce: string): Buffer {
  // Lengths prefix each part so that no two different bindings serialise to the same text.
  const message = [binding.projectId, binding.formName, expires, nonce]
    .map((part) => `${part.length}:${part}`)
    .join("|");
  return createHmac("sha256", key).update(message, "utf8").digest();
}

export function issueCsrfToken(key: Buffer, binding: CsrfBinding, now: Date): string {
  const expires = String(now.getTime() + csrfTokenLifetimeMs);
  const nonce = randomBytes(16).toString("base64url");
  return `${expires}.${nonce}.${mac(key, binding, expires, nonce).toString("base64url")}`;
}

const tokenPattern = /^(\d{1,16})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/;

/** Checks a presented token in constant time; the nonce identifies the rendered form it came from. */
export function checkCsrfToken(key: Buffer, binding: CsrfBinding, presented: string | undefined, now: Date): CsrfCheck {
  if (presented === undefined || presented === "") return { ok: false, reason: "missing" };
  const match = tokenPattern.exec(presented);
  if (match === null) return { ok: false, reason: "malformed" };
  const [, expires = "", nonce = "", signature = ""] = match;
  const expected = mac(key, binding, expires, nonce);
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: "forged" };
  if (now.getTime() >= Number(expires)) return { ok: false, reason: "expired" };
  return { ok: true, nonce };
}

/**
 * `checkCsrfToken` under each key in turn (the current one first, then the one before a rotation),
 * so that forms rendered before WEFT_SECRET_KEY changed can be sent until their tokens expire.
 */
export function checkCsrfTokenUnderKeys(
  keys: readonly Buffer[],
  binding: CsrfBinding,
  presented: string | undefined,
  now: Date,
): CsrfCheck {
  let check: CsrfCheck = { ok: false, reason: "forged" };
  for (const key of keys) {
    check = checkCsrfToken(key, binding, presented, now);
    if (check.ok || check.reason !== "forged") return check;
  }
  return check;
}
