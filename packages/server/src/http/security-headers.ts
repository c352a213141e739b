import type { MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { secureHeaders } from "hono/secure-headers";

type SecureHeadersOptions = NonNullable<Parameters<typeof secureHeaders>[0]>;

import type { AppEnv } from "./app-env.ts";
import { setResponseHeader } from "./response-headers.ts";

/**
 * The headers Hono's `secureHeaders` adds to a response, read once from a response it decorated:
 * the library stays the authority on which headers and values to send, and each request only
 * copies a fixed list (see `setResponseHeader` for why not the middleware itself).
 */
async function securityHeaderList(options: SecureHeadersOptions): Promise<[string, string][]> {
  const probe = new Hono().use(secureHeaders(options)).get("/", () => new Response(null));
  const response = await probe.request("/");
  return [...response.headers.entries()];
}

export function securityHeaders(options: SecureHeadersOptions): MiddlewareHandler<AppEnv> {
  const list = securityHeaderList(options);
  return async (c, next) => {
    for (const [name, value] of await list) setResponseHeader(c, name, value);
    return next();
  };
}
