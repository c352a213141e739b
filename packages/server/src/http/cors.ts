import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./app-env.ts";
import { setResponseHeader } from "./response-headers.ts";

/** Where the platform's surfaces live: the paths of `{auth_url}` and `{base_url}` ("" at the root). */
export interface CorsPaths {
  authPath: string;
  basePath: string;
}

/** Request headers a cross-origin caller may send: bearer tokens, JSON bodies, and MCP's own. */
const corsAllowedHeaders = [
  "Authorization",
  "Content-Type",
  "MCP-Protocol-Version",
  "Mcp-Session-Id",
  "Last-Event-ID",
  "X-Request-Id",
];

/** Response headers a cross-origin caller may read besides the CORS-safelisted ones. */
const corsExposedHeaders = ["WWW-Authenticate", "Retry-After", "X-Request-Id", "Mcp-Session-Id"];

/** How long a browser may reuse a preflight's answer (Chromium caps it at 2 hours). */
const preflightMaxAgeSeconds = 7200;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Which paths are open to scripts of any origin: the discovery documents, the agent registration
 * API and the resource server's API. Pages meant for a person (approval, the claim instructions,
 * hosted forms, the dev mailbox, the Studio) are not: no other origin has reason to read them, and
 * refusing keeps them out of reach of a page that would act through the browser. One regular
 * expression, built once: it is tested on every request, webhooks included.
 */
export function crossOriginRule({ authPath, basePath }: CorsPaths): (path: string) => boolean {
  const auth = escapeRegExp(authPath);
  const resource = basePath === "" ? "" : `(?:${escapeRegExp(basePath)})?`;
  const alternatives = [
    "/\\.well-known/.*",
    `${resource}/openapi\\.json`,
    `${resource}/(?:rpc|api|mcp)(?:/.*)?`,
    `${auth}/auth\\.md`,
    `${auth}/\\.well-known/.*`,
    // The token, revocation and client registration endpoints, but not the authorize page, which is
    // for a person.
    `${auth}/oauth2/(?:token|revoke|register)`,
    // The registration API, but not the approval page nor the claim instructions page.
    `${auth}/agent/auth(?:/claim/complete|/(?!approve|claim/).*)?`,
  ];
  const pattern = new RegExp(`^(?:${alternatives.map((alternative) => `(?:${alternative})`).join("|")})$`);
  return (path) => pattern.test(path);
}

/**
 * CORS for the paths `crossOriginRule` opens, the first middleware after the request id and the
 * security headers: every answer there may be read by any origin, without credentials (bearer
 * tokens are not cookies, so `*` gives a page nothing it could not fetch itself), and a preflight is
 * answered 204 at once, before authentication, rate limiting or body limits could refuse it.
 */
export function crossOriginAccess(paths: CorsPaths): MiddlewareHandler<AppEnv> {
  const allowsCrossOrigin = crossOriginRule(paths);
  const preflightHeaders = {
    "Access-Control-Allow-Methods": "GET, POST, DELETE, OPTIONS",
    "Access-Control-Allow-Headers": corsAllowedHeaders.join(", "),
    "Access-Control-Max-Age": String(preflightMaxAgeSeconds),
  };
  const exposedHeaders = corsExposedHeaders.join(", ");
  return async (c, next) => {
    if (!allowsCrossOrigin(c.req.path)) return next();
    setResponseHeader(c, "Access-Control-Allow-Origin", "*");
    if (c.req.method !== "OPTIONS") {
      setResponseHeader(c, "Access-Control-Expose-Headers", exposedHeaders);
      return next();
    }
    return c.body(null, 204, preflightHeaders);
  };
}
