import { Hono } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import { defaultBodyLimitBytes } from "../http/body-limit.ts";
import { bearerError } from "../http/errors.ts";
import { requestLogger } from "../http/request-context.ts";
import type { PlatformContext } from "../platform-context.ts";
import { authenticateBearer, bearerChallenge, insufficientScopeChallenge } from "../rpc/bearer-authentication.ts";
import type { PrincipalResolver } from "../rpc/principal-cache.ts";
import { protectedResourceMetadataUrl } from "../rpc/protected-resource-metadata.ts";
import { resourceRootsOf } from "../shared/base-path.ts";

/** Where the MCP endpoint answers: `/mcp` under each resource root. */
export function mcpPaths(baseUrl: string): `/${string}`[] {
  return resourceRootsOf(baseUrl).map((root) => `${root}/mcp` as const);
}

/**
 * The MCP SDK, the tool catalogue and the server, loaded with the first request that gets past the
 * credential check: a platform that never serves MCP never loads them, and the others start without
 * waiting for them.
 */
async function mcpModules() {
  const [transport, scopes, server] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"),
    import("./insufficient-scope.ts"),
    import("./mcp-server.ts"),
  ]);
  return {
    WebStandardStreamableHTTPServerTransport: transport.WebStandardStreamableHTTPServerTransport,
    insufficientScopeOf: scopes.insufficientScopeOf,
    createMcpServer: server.createMcpServer,
  };
}

/**
 * The request's JSON body, read from a copy: when it is not JSON, the transport reads the original
 * and refuses it in its own words. A body over the platform's limit throws, answered 413.
 */
async function jsonBodyOf(request: Request): Promise<{ parsedBody: unknown } | undefined> {
  const text = await request.clone().text();
  try {
    return { parsedBody: JSON.parse(text) };
  } catch {
    return undefined;
  }
}

/**
 * `{base_url}/mcp`: MCP's Streamable HTTP transport, stateless. Each POST carries its own bearer
 * credential, authenticated as on `/rpc` (same resolver, same 401 challenge), and is answered by a
 * server made for it, in JSON rather than an event stream: no session id, nothing kept between
 * requests, so any API process answers any request. GET (a stream for server-initiated messages)
 * and DELETE (ending a session) have nothing to serve without sessions: 405, as the transport's
 * specification allows. A `tools/call` whose tool needs a scope the credential lacks is answered
 * 403 `insufficient_scope` before it runs (MCP authorization, scope challenge), with the scopes to
 * ask for: a tool error would leave the client no way to step up.
 */
export function mcpRoutes(context: PlatformContext, resolver: PrincipalResolver): Hono<AppEnv> {
  const metadataUrl = protectedResourceMetadataUrl(context.config.baseUrl);
  const routes = new Hono<AppEnv>();
  for (const path of mcpPaths(context.config.baseUrl)) {
    routes.all(path, async (c) => {
      const authentication = await authenticateBearer(c.req.header("authorization"), resolver);
      if (authentication.status === "failed") throw authentication.error;
      if (authentication.status !== "authenticated") {
        c.header("WWW-Authenticate", bearerChallenge(authentication, metadataUrl));
        return authentication.status === "missing"
          ? bearerError(
              c,
              401,
              "invalid_request",
              "A bearer credential is required: send Authorization: Bearer <credential>.",
            )
          : bearerError(
              c,
              401,
              "invalid_token",
              "The bearer credential is unknown, expired or revoked; register again for a new one.",
            );
      }
      if (c.req.method !== "POST") {
        c.header("Allow", "POST");
        return c.json(
          {
            jsonrpc: "2.0",
            error: { code: -32000, message: "This endpoint is stateless: send JSON-RPC with POST." },
            id: null,
          },
          405,
        );
      }
      const { WebStandardStreamableHTTPServerTransport, insufficientScopeOf, createMcpServer } = await mcpModules();
      const body = await jsonBodyOf(c.req.raw);
      const insufficient =
        body === undefined ? undefined : insufficientScopeOf(body.parsedBody, authentication.principal);
      if (insufficient !== undefined) {
        c.header("WWW-Authenticate", insufficientScopeChallenge(insufficient.scopes.join(" "), metadataUrl));
        return bearerError(c, 403, "insufficient_scope", insufficient.description);
      }
      const server = createMcpServer(authentication.principal, () => ({
        platform: context,
        requestId: c.get("requestId"),
        requestLogger: () => requestLogger(c),
        authentication,
        via: "mcp",
        refusedScope: {},
        retryAfter: {},
      }));
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        maxRequestBodySize: defaultBodyLimitBytes,
      });
      transport.onerror = (error) => requestLogger(c).debug({ err: error }, "MCP request refused by the transport");
      await server.connect(transport);
      try {
        return await transport.handleRequest(c.req.raw, body);
      } finally {
        await server.close();
      }
    });
  }
  return routes;
}
