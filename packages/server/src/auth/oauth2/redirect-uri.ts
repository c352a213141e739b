import { isLoopbackAddress } from "../../shared/loopback.ts";

function parse(uri: string): URL | undefined {
  return URL.canParse(uri) ? new URL(uri) : undefined;
}

function isLoopbackHttp(url: URL): boolean {
  return url.protocol === "http:" && isLoopbackAddress(url.hostname);
}

/**
 * Which redirect URIs a public client may register (RFC 8252, OAuth 2.1 §2.3.1): https, http on a
 * loopback address only (a native app's local listener), or an app's private-use scheme
 * (`com.example.app:/callback`, `cursor://…`; RFC 8252 §7.1). Never a fragment.
 */
export function redirectUriProblem(uri: string): string | undefined {
  const url = parse(uri);
  if (url === undefined) return `${uri} is not an absolute URI.`;
  if (url.hash !== "" || uri.includes("#")) return `${uri} has a fragment; redirect URIs must not.`;
  if (url.protocol === "https:" || isLoopbackHttp(url)) return undefined;
  if (url.protocol === "http:") return `${uri} uses http on a host that is not a loopback address; use https.`;
  if (/^(javascript|data|file|blob|vbscript|ws|wss|ftp):$/i.test(url.protocol)) {
    return `${uri} uses a scheme that cannot be a redirect.`;
  }
  return undefined;
}

/**
 * Whether a requested redirect URI is one the client registered: exactly, except that a loopback
 * http URI may name any port (RFC 8252 §7.3), since a native app listens on whatever port is free.
 */
export function redirectUriIsRegistered(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const wanted = parse(requested);
  if (wanted === undefined || !isLoopbackHttp(wanted)) return false;
  return registered.some((uri) => {
    const candidate = parse(uri);
    if (candidate === undefined || !isLoopbackHttp(candidate)) return false;
    candidate.port = wanted.port;
    return candidate.href === wanted.href;
  });
}

/** Where a redirect URI sends the person, as the consent page and the approval mail name it. */
export function redirectHostOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.host === "" ? url.protocol : url.host;
}
