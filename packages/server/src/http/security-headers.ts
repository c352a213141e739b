import type { Context, MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { secureHeaders } from "hono/secure-headers";
import type { AppEnv } from "./app-env.ts";
import { setResponseHeader } from "./response-headers.ts";

type SecureHeadersOptions = NonNullable<Parameters<typeof secureHeaders>[0]>;

/** Response headers every answer of the platform carries, as name/value pairs. */
export type SecurityHeaderList = Promise<[string, string][]>;

/**
 * The headers Hono's `secureHeaders` adds to a response, read once from a response it decorated:
 * the library stays the authority on which headers and values to send, and each request only
 * copies a fixed list (see `setResponseHeader` for why not the middleware itself).
 */
export async function securityHeaderList(options: SecureHeadersOptions): SecurityHeaderList {
  const probe = new Hono().use(secureHeaders(options)).get("/", () => new Response(null));
  const response = await probe.request("/");
  return [...response.headers.entries()];
}

export function securityHeaders(list: SecurityHeaderList): MiddlewareHandler<AppEnv> {
  // Read synchronously once known: awaiting even a settled promise costs every request a turn.
  let known: [string, string][] | undefined;
  void list.then((headers) => {
    known = headers;
  });
  return async (c, next) => {
    for (const [name, value] of known ?? (await list)) setResponseHeader(c, name, value);
    return next();
  };
}

/**
 * Widens the page's `form-action` to one more source, for a form whose answer redirects there: the
 * OAuth consent form ends at the client's redirect URI, and browsers hold redirects after a form
 * submission to `form-action` too.
 */
export function allowFormActionTo(c: Context<AppEnv>, source: string): void {
  const current = c.env?.outgoing?.getHeader("content-security-policy") ?? c.res.headers.get("content-security-policy");
  if (typeof current !== "string") return;
  const widened = current.replace(
    /form-action ([^;]*)/,
    (_directive, sources: string) => `form-action ${sources} ${source}`,
  );
  setResponseHeader(c, "Content-Security-Policy", widened);
}
