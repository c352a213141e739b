import { Hono } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import { jsonError } from "../http/errors.ts";
import { requestLogger } from "../http/request-context.ts";
import type { PlatformContext } from "../platform-context.ts";
import { authenticateBearer, bearerChallenge } from "./bearer-authentication.ts";
import { generateOpenApiDocument } from "./openapi-document.ts";
import { createPrincipalResolver } from "./principal-cache.ts";
import {
  protectedResourceMetadata,
  protectedResourceMetadataPath,
  protectedResourceMetadataUrl,
} from "./protected-resource-metadata.ts";
import { createOpenApiHandler, createRpcHandler } from "./rpc-handlers.ts";

/**
 * The resource server: protected resource metadata, the RPC API at `/rpc` (and the same procedures
 * as plain JSON at `/api`), and the OpenAPI document. Bearer authentication happens here, once per
 * request; the procedures' middleware refuses calls that did not pass it.
 */
export function rpcRoutes(context: PlatformContext): Hono<AppEnv> {
  const resolver = createPrincipalResolver({
    db: context.database.db,
    clock: context.clock,
    revocations: context.credentialRevocations,
  });
  const metadataUrl = protectedResourceMetadataUrl(context.config.baseUrl);
  const metadata = protectedResourceMetadata(context.config);
  const handlers = { "/rpc": createRpcHandler(), "/api": createOpenApiHandler() };
  let openApiDocument: Promise<unknown> | undefined;

  const routes = new Hono<AppEnv>();
  routes.get(protectedResourceMetadataPath, (c) => c.json(metadata));
  routes.get("/openapi.json", async (c) => {
    openApiDocument ??= generateOpenApiDocument(context.config.baseUrl).catch((error: unknown) => {
      // Do not keep serving a failure: the next request tries again.
      openApiDocument = undefined;
      throw error;
    });
    return c.json(await openApiDocument);
  });
  for (const [prefix, handler] of Object.entries(handlers)) {
    routes.all(`${prefix}/*`, async (c) => {
      const authentication = await authenticateBearer(c.req.header("authorization"), resolver);
      const { matched, response } = await handler.handle(c.req.raw, {
        prefix: prefix as `/${string}`,
        context: {
          platform: context,
          requestId: c.get("requestId"),
          get logger() {
            return requestLogger(c);
          },
          authentication,
        },
      });
      if (!matched) return jsonError(c, 404, "not_found", `No procedure at ${c.req.path}.`);
      const challenge = response.status === 401 ? bearerChallenge(authentication, metadataUrl) : undefined;
      if (challenge !== undefined) response.headers.set("WWW-Authenticate", challenge);
      // A body refused for its size is still partly on the socket: close it rather than reuse it.
      if (response.status === 413) response.headers.set("Connection", "close");
      return response;
    });
  }
  return routes;
}
