import { createLocalJWKSet, errors, type JSONWebKeySet, type JWSHeaderParameters, type LocalJWKSet } from "jose";
import type { Clock } from "../shared/clock.ts";
import { type GuardedFetch, OutboundError, type OutboundResponse } from "../shared/guarded-fetch.ts";
import type { Logger } from "../shared/logger.ts";
import { singleFlight } from "../shared/single-flight.ts";

/** Cache lifetimes honour the issuer's `Cache-Control: max-age`, kept within these bounds. */
const minCacheMs = 10 * 60 * 1000;
const maxCacheMs = 24 * 60 * 60 * 1000;
const defaultCacheMs = 60 * 60 * 1000;
/** An unknown `kid` triggers at most one refetch per issuer in this interval, so forged kids cannot flood the issuer. */
export const jwksRefetchCooldownMs = 30 * 1000;
const fetchDeadlineMs = 5000;
const maxDocumentBytes = 256 * 1024;

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

/** A JSON document an issuer publishes (its JWKS, its OpenID configuration), and what of it is used. */
export interface IssuerDocument<T> {
  what: string;
  /** What a usable document is, for the refusal. */
  shape: string;
  /** The part used, or undefined when the document is not usable. */
  read(body: unknown): T | undefined;
}

/** Fetches and reads an issuer's document, with how long it may be cached; throws `JwksUnavailableError`. */
export type FetchIssuerDocument = <T>(
  url: string,
  document: IssuerDocument<T>,
) => Promise<{ value: T; lifetimeMs: number }>;

/**
 * Fetches issuers' documents through `outbound`. A refused address is named; every other failure
 * reads the same, whatever answered (or did not) at the address, since the issuer and its
 * `jwks_uri` are a tenant's to choose and a refusal that told them apart would tell which ports
 * are open behind the platform. The log keeps what happened.
 */
export function issuerDocumentFetcher(outbound: GuardedFetch, logger: Logger): FetchIssuerDocument {
  return async (url, document) => {
    const unusable = (detail: string) => {
      logger.info({ url, detail }, `the issuer's ${document.what} could not be used`);
      return new JwksUnavailableError(
        `the issuer's ${document.what} could not be used: ${url} must answer 200 with ${document.shape}, at most ${maxDocumentBytes / 1024} KiB within ${fetchDeadlineMs / 1000} s`,
      );
    };
    let response: OutboundResponse;
    try {
      response = await outbound.request(new URL(url), {
        headers: { accept: "application/json" },
        maxBodyBytes: maxDocumentBytes,
        deadlineMs: fetchDeadlineMs,
      });
    } catch (error) {
      if (error instanceof OutboundError && error.refused) {
        throw new JwksUnavailableError(`the issuer's ${document.what} is out of reach: ${error.message}`);
      }
      throw unusable(error instanceof Error ? error.message : String(error));
    }
    if (response.status !== 200) throw unusable(`answered ${response.status}`);
    let body: unknown;
    try {
      body = JSON.parse(response.body.toString("utf8"));
    } catch {
      throw unusable("not JSON");
    }
    const value = document.read(body);
    if (value === undefined) throw unusable(`not ${document.shape}`);
    return { value, lifetimeMs: cacheLifetimeMs(response.headers["cache-control"] ?? null) };
  };
}

const keySetDocument: IssuerDocument<JSONWebKeySet> = {
  what: "JWKS",
  shape: "a JSON key set ({ keys: [...] })",
  read: (body) =>
    typeof body === "object" && body !== null && Array.isArray((body as { keys?: unknown }).keys)
      ? (body as JSONWebKeySet)
      : undefined,
};

/**
 * Per-process cache of issuers' key sets. Only URIs of trusted issuers ever reach it. Concurrent
 * misses share one fetch; an unknown `kid` refetches once (key rotation), at most once per cooldown.
 */
export function createJwksCache(clock: Clock, fetchDocument: FetchIssuerDocument): JwksCache {
  const cache = new Map<string, CachedKeySet>();
  const refresh = singleFlight(async (jwksUri: string): Promise<CachedKeySet> => {
    const { value: keys, lifetimeMs } = await fetchDocument(jwksUri, keySetDocument);
    const now = clock.now().getTime();
    const entry = { resolve: createLocalJWKSet(keys), fetchedAt: now, expiresAt: now + lifetimeMs };
    cache.set(jwksUri, entry);
    return entry;
  });

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
