import { Hono } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import type { PlatformContext } from "../platform-context.ts";
import { basePathOf } from "../shared/base-path.ts";
import { generateOpenApiDocument } from "./openapi-document.ts";
import { protectedResourceMetadata, protectedResourceMetadataPath } from "./protected-resource-metadata.ts";

/**
 * The resource server's documents: protected resource metadata and the OpenAPI document. The
 * procedures themselves are served by `rpc-listener.ts`. When `{base_url}` has a path, each is
 * served under it as well as at the root (see `rpc-listener.ts`).
 */
export function rpcRoutes(context: PlatformContext): Hono<AppEnv> {
  const metadata = protectedResourceMetadata(context.config);
  const basePath = basePathOf(context.config.baseUrl);
  let openApiDocument: Promise<unknown> | undefined;

  const routes = new Hono<AppEnv>();
  routes.get(protectedResourceMetadataPath, (c) => c.json(metadata));
  if (basePath !== "") routes.get(`${protectedResourceMetadataPath}${basePath}`, (c) => c.json(metadata));
  for (const prefix of new Set([basePath, ""])) {
    routes.get(`${prefix}/openapi.json`, async (c) => {
      openApiDocument ??= generateOpenApiDocument(context.config.baseUrl).catch((error: unknown) => {
        // Do not keep serving a failure: the next request tries again.
        openApiDocument = undefined;
        throw error;
      });
      return c.json(await openApiDocument);
    });
  }
  return routes;
}
