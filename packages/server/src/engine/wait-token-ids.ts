import { createHmac, randomBytes } from "node:crypto";
import { derivePurposeKey } from "../shared/purpose-key.ts";
import { hashSecret } from "../shared/secrets.ts";

/**
 * A wait token's id is a 256-bit secret carried in its URL: the HMAC-SHA-256 of a random 256-bit
 * nonce under a key derived from WEFT_SECRET_KEY. Only the nonce and the id's SHA-256 are stored,
 * so a copy of the database completes nothing, yet a resumed execution gets the same id back from
 * `ctx.createToken` on whichever worker replays it (every process shares the secret key).
 */

/** The prefix of every token id, so that a leaked one is recognisable. */
const tokenPrefix = "wtk_";

export function deriveWaitTokenKey(secretKey: Buffer): Buffer {
  return derivePurposeKey(secretKey, "weft wait token v1");
}

export function newTokenNonce(): string {
  return randomBytes(32).toString("base64url");
}

export function tokenIdOf(key: Buffer, nonce: string): string {
  return `${tokenPrefix}${createHmac("sha256", key).update(nonce, "utf8").digest("base64url")}`;
}

/** What a token is looked up by. */
export function tokenHashOf(tokenId: string): string {
  return hashSecret(tokenId);
}

/** A token id as the URL carries it; anything else cannot be one and is not looked up. */
export const tokenIdPattern = /^wtk_[A-Za-z0-9_-]{43}$/;

/** Where a token is completed: under `/triggers` at the root of the platform's origin, as hosted forms are. */
export function tokenUrl(baseUrl: string, tokenId: string): string {
  return `${new URL(baseUrl).origin}/triggers/tokens/${tokenId}`;
}

/** What a worker needs to hand out token ids and URLs. */
export interface TokenIssuer {
  key: Buffer;
  baseUrl: string;
}

export function waitTokenIssuer(config: { secretKey: Buffer; baseUrl: string }): TokenIssuer {
  return { key: deriveWaitTokenKey(config.secretKey), baseUrl: config.baseUrl };
}
