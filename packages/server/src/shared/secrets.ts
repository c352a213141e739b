import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** SHA-256 hex digest: how every bearer secret (credentials, claim tokens, codes) is stored. */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("hex");
}

/**
 * Compares two secrets in time independent of where they differ. Both sides are hashed first so
 * that inputs of different lengths take the same path and leak nothing about the expected length.
 */
export function secretsEqual(presented: string, expected: string): boolean {
  const a = createHash("sha256").update(presented, "utf8").digest();
  const b = createHash("sha256").update(expected, "utf8").digest();
  return timingSafeEqual(a, b);
}

/** Compares a presented secret with a stored SHA-256 hex digest in constant time. */
export function secretMatchesHash(presented: string, storedHash: string): boolean {
  const a = createHash("sha256").update(presented, "utf8").digest();
  const b = Buffer.from(storedHash, "hex");
  return b.length === a.length && timingSafeEqual(a, b);
}

/** A high-entropy opaque token with a recognisable prefix, e.g. `weft_…` or `clm_…`. */
export function generateToken(prefix: string, bytes = 32): string {
  return `${prefix}_${randomBytes(bytes).toString("base64url")}`;
}

/** What a token of `generateToken(prefix, bytes)` looks like: anything else is refused before a lookup. */
export function tokenPattern(prefix: string, bytes = 32): RegExp {
  return new RegExp(`^${prefix}_[A-Za-z0-9_-]{${Math.ceil((bytes * 4) / 3)}}$`);
}
