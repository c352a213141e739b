import type { Clock } from "../../shared/clock.ts";
import { singleFlight } from "../../shared/single-flight.ts";
import { checkMetadata, checkRedirectUris, type OAuthClient } from "./client-metadata.ts";

/** A failed or invalid document is not fetched again for this long, so a bad client_id cannot make Weft a relay. */
const refusalCacheMs = 60 * 1000;
const maxCachedDocuments = 1000;

/**
 * Whether a `client_id` names a client ID metadata document: an https URL with a path, no
 * fragment and no user info (draft-ietf-oauth-client-id-metadata-document §3).
 */
export function isClientMetadataDocumentUrl(clientId: string): boolean {
  if (!clientId.startsWith("https://") || !URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  return (
    url.pathname !== "/" && url.hash === "" && url.username === "" && url.password === "" && !clientId.includes("#")
  );
}

export interface ClientMetadataDocuments {
  /** The client a document describes, or undefined when it cannot be fetched or is not valid. */
  find(clientId: string): Promise<OAuthClient | undefined>;
}

/** The client a fetched document describes, if it is one Weft accepts: public, naming itself. */
export function clientOfDocument(clientId: string, body: unknown, now: Date): OAuthClient | undefined {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const document = body as Record<string, unknown>;
  if (document.client_id !== clientId || "client_secret" in document) return undefined;
  const redirectUris = checkRedirectUris(document.redirect_uris);
  const metadata = checkMetadata(document);
  if (!redirectUris.ok || !metadata.ok) return undefined;
  return { clientId, clientName: metadata.value.clientName, redirectUris: redirectUris.value, createdAt: now };
}

/**
 * Client ID metadata documents, fetched when first named and kept per process as long as their
 * `Cache-Control` allows (a cache that is safe to lose). Concurrent misses share one fetch.
 */
export function createClientMetadataDocuments(deps: {
  clock: Clock;
  fetchDocument: (url: URL) => Promise<{ body: unknown; lifetimeMs: number }>;
}): ClientMetadataDocuments {
  const cache = new Map<string, { client: OAuthClient | undefined; expiresAt: number }>();

  const load = singleFlight(async (clientId: string): Promise<OAuthClient | undefined> => {
    let entry: { client: OAuthClient | undefined; expiresAt: number };
    try {
      const { body, lifetimeMs } = await deps.fetchDocument(new URL(clientId));
      const now = deps.clock.now();
      const client = clientOfDocument(clientId, body, now);
      entry = { client, expiresAt: now.getTime() + (client === undefined ? refusalCacheMs : lifetimeMs) };
    } catch {
      entry = { client: undefined, expiresAt: deps.clock.now().getTime() + refusalCacheMs };
    }
    if (cache.size >= maxCachedDocuments) cache.delete(cache.keys().next().value as string);
    cache.set(clientId, entry);
    return entry.client;
  });

  return {
    find: (clientId) => {
      const cached = cache.get(clientId);
      if (cached !== undefined && cached.expiresAt > deps.clock.now().getTime()) return Promise.resolve(cached.client);
      return load(clientId);
    },
  };
}
