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

async function fetchKeySet(jwksUri: string): Promise<{ keys: JSONWebKeySet; lifetimeMs: number }> {
  let response: Response;
  try {
    response = await fetch(jwksUri, {
      signal: AbortSignal.timeout(fetchTimeoutMs),
      headers: { accept: "application/json" },
      redirect: "error",
    });
  } catch (error) {
    throw new JwksUnavailableError(`the issuer's JWKS could not be fetched: ${(error as Error).message}`);
  }
  if (!response.ok) throw new JwksUnavailableError(`the issuer's JWKS answered ${response.status}`);
  const text = await response.text();
  if (text.length > maxJwksBytes) throw new JwksUnavailableError("the issuer's JWKS is too large");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new JwksUnavailableError("the issuer's JWKS is not JSON");
  }
  if (typeof body !== "object" || body === null || !Array.isArray((body as { keys?: unknown }).keys)) {
    throw new JwksUnavailableError("the issuer's JWKS has no keys array");
  }
  return { keys: body as JSONWebKeySet, lifetimeMs: cacheLifetimeMs(response.headers.get("cache-control")) };
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
