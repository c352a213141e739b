import { createLocalJWKSet, errors, type JSONWebKeySet, type JWSHeaderParameters, type LocalJWKSet } from "jose";
import type { Clock } from "../shared/clock.ts";

/** Cache lifetimes honour the issuer's `Cache-Control: max-age`, kept within these bounds. */
const minCacheMs = 10 * 60 * 1000;
const maxCacheMs = 24 * 60 * 60 * 1000;
const defaultCacheMs = 60 * 60 * 1000;
/** An unknown `kid` triggers at most one refetch per issuer in this interval, so forged kids cannot flood the issuer. */
export const jwksRefetchCooldownMs = 30 * 1000;
const fetchTimeoutMs = 5000;
const maxJwksBytes = 256 * 1024;

export class JwksUnavailableError extends Error {
  override readonly name = "JwksUnavailableError";
}

interface CachedKeySet {
  resolve: LocalJWKSet;
  fetchedAt: number;
  expiresAt: number;
}

export interface JwksCache {
  /** The verification key for a JWS header from the issuer's JWKS. Throws when none matches. */
  keyFor(jwksUri: string, header: JWSHeaderParameters): ReturnType<LocalJWKSet>;
}

export function cacheLifetimeMs(cacheControl: string | null): number {
  const match = cacheControl === null ? null : /(?:^|,)\s*max-age\s*=\s*(\d+)/i.exec(cacheControl);
  const requested = match?.[1] === undefined ? defaultCacheMs : Number(match[1]) * 1000;
  return Math.min(maxCacheMs, Math.max(minCacheMs, requested));
}

/**
 * A JSON document an issuer publishes (its JWKS, its OpenID configuration): fetched with a timeout,
 * no redirects and a size bound, with how long it may be cached.
 */
export async function fetchIssuerDocument(url: string, what: string): Promise<{ body: unknown; lifetimeMs: number }> {
  let response: Response;
  try {
    response = await fetch(url, {
      signal: AbortSignal.timeout(fetchTimeoutMs),
      headers: { accept: "application/json" },
      redirect: "error",
    });
  } catch (error) {
    throw new JwksUnavailableError(`the issuer's ${what} could not be fetched: ${(error as Error).message}`);
  }
  if (!response.ok) throw new JwksUnavailableError(`the issuer's ${what} answered ${response.status}`);
  const text = await response.text();
  if (text.length > maxJwksBytes) throw new JwksUnavailableError(`the issuer's ${what} is too large`);
  try {
    return { body: JSON.parse(text), lifetimeMs: cacheLifetimeMs(response.headers.get("cache-control")) };
  } catch {
    throw new JwksUnavailableError(`the issuer's ${what} is not JSON`);
  }
}

async function fetchKeySet(jwksUri: string): Promise<{ keys: JSONWebKeySet; lifetimeMs: number }> {
  const { body, lifetimeMs } = await fetchIssuerDocument(jwksUri, "JWKS");
  if (typeof body !== "object" || body === null || !Array.isArray((body as { keys?: unknown }).keys)) {
    throw new JwksUnavailableError("the issuer's JWKS has no keys array");
  }
  return { keys: body as JSONWebKeySet, lifetimeMs };
}

/**
 * Per-process cache of issuers' key sets. Only URIs of trusted issuers ever reach it. Concurrent
 * misses share one fetch; an unknown `kid` refetches once (key rotation), at most once per cooldown.
 */
export function createJwksCache(clock: Clock): JwksCache {
  const cache = new Map<string, CachedKeySet>();
  const inFlight = new Map<string, Promise<CachedKeySet>>();

  const refresh = (jwksUri: string): Promise<CachedKeySet> => {
    const pending = inFlight.get(jwksUri);
    if (pending !== undefined) return pending;
    const started = (async () => {
      try {
        const { keys, lifetimeMs } = await fetchKeySet(jwksUri);
        const now = clock.now().getTime();
        const entry = { resolve: createLocalJWKSet(keys), fetchedAt: now, expiresAt: now + lifetimeMs };
        cache.set(jwksUri, entry);
        return entry;
      } finally {
        inFlight.delete(jwksUri);
      }
    })();
    inFlight.set(jwksUri, started);
    return started;
  };

  return {
    keyFor: async (jwksUri, header) => {
      const now = clock.now().getTime();
      const cached = cache.get(jwksUri);
      const entry = cached !== undefined && cached.expiresAt > now ? cached : await refresh(jwksUri);
      try {
        return await entry.resolve(header);
      } catch (error) {
        const unknownKey = error instanceof errors.JWKSNoMatchingKey;
        if (!unknownKey || entry !== cached || now - entry.fetchedAt < jwksRefetchCooldownMs) throw error;
        return (await refresh(jwksUri)).resolve(header);
      }
    },
  };
}
