import { get } from "node:https";
import type { EgressPolicy } from "../../engine/egress/address-policy.ts";
import { checkedLookup, EgressRefusedError, literalAddressRefusal } from "../../engine/egress/checked-lookup.ts";
import type { ResolveHost } from "../../engine/egress/egress-proxy.ts";
import { cacheLifetimeMs } from "../jwks-cache.ts";

/** The draft's suggested bound for a client metadata document; nothing legitimate comes near it. */
const maxDocumentBytes = 5 * 1024;
const fetchTimeoutMs = 5000;

export class DocumentUnavailableError extends Error {
  override readonly name = "DocumentUnavailableError";
}

/**
 * GETs a small JSON document from an https URL a caller named, as the authorization server: only
 * to addresses the policy allows, no redirects, bounded in size and time. Returns the body and how
 * long it may be cached (`Cache-Control: max-age`, within the JWKS cache's bounds).
 */
export function fetchPublicDocument(
  url: URL,
  deps: { resolveHost: ResolveHost; policy: EgressPolicy },
): Promise<{ body: unknown; lifetimeMs: number }> {
  return new Promise((resolve, reject) => {
    const port = url.port === "" ? 443 : Number(url.port);
    const refusal = literalAddressRefusal(url, deps.policy, port);
    if (refusal !== undefined) {
      reject(new EgressRefusedError(refusal));
      return;
    }
    const request = get(
      url,
      {
        lookup: checkedLookup(deps.resolveHost, deps.policy, port),
        headers: { accept: "application/json" },
        timeout: fetchTimeoutMs,
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new DocumentUnavailableError(`${url.href} answered ${response.statusCode}`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxDocumentBytes) {
            request.destroy(new DocumentUnavailableError(`${url.href} is larger than ${maxDocumentBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on("end", () => {
          try {
            const body: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
            resolve({ body, lifetimeMs: cacheLifetimeMs(response.headers["cache-control"] ?? null) });
          } catch {
            reject(new DocumentUnavailableError(`${url.href} is not JSON`));
          }
        });
        response.on("error", reject);
      },
    );
    request.on("timeout", () => request.destroy(new DocumentUnavailableError(`${url.href} did not answer in time`)));
    request.on("error", reject);
  });
}
