import type { GuardedFetch } from "../../shared/guarded-fetch.ts";
import { cacheLifetimeMs } from "../jwks-cache.ts";

/** The draft's suggested bound for a client metadata document; nothing legitimate comes near it. */
const maxDocumentBytes = 5 * 1024;
const fetchDeadlineMs = 5000;

export class DocumentUnavailableError extends Error {
  override readonly name = "DocumentUnavailableError";
}

/**
 * GETs a small JSON document from an https URL a caller named, as the authorization server,
 * through `outbound` (the address policy, no redirects, bounded in size and time). Returns the body
 * and how long it may be cached (`Cache-Control: max-age`, within the JWKS cache's bounds).
 */
export async function fetchPublicDocument(
  url: URL,
  outbound: GuardedFetch,
): Promise<{ body: unknown; lifetimeMs: number }> {
  const response = await outbound.request(url, {
    headers: { accept: "application/json" },
    maxBodyBytes: maxDocumentBytes,
    deadlineMs: fetchDeadlineMs,
  });
  if (response.status !== 200) throw new DocumentUnavailableError(`${url.href} answered ${response.status}`);
  try {
    const body: unknown = JSON.parse(response.body.toString("utf8"));
    return { body, lifetimeMs: cacheLifetimeMs(response.headers["cache-control"] ?? null) };
  } catch {
    throw new DocumentUnavailableError(`${url.href} is not JSON`);
  }
}
