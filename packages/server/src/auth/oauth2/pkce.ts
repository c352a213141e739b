import { createHash } from "node:crypto";
import { secretsEqual } from "../../shared/secrets.ts";

/** RFC 7636 §4.1: 43 to 128 unreserved characters, for the verifier and for an S256 challenge alike. */
const pkceValuePattern = /^[A-Za-z0-9._~-]{43,128}$/;

export function isPkceValue(value: string): boolean {
  return pkceValuePattern.test(value);
}

/** Whether a verifier answers an S256 challenge (RFC 7636 §4.6), compared in constant time. */
export function verifierMatchesChallenge(verifier: string, challenge: string): boolean {
  if (!isPkceValue(verifier)) return false;
  return secretsEqual(createHash("sha256").update(verifier, "ascii").digest("base64url"), challenge);
}
