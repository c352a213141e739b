import { Hono } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import type { PlatformContext } from "../platform-context.ts";
import { basePathOf, resourceRootsOf } from "../shared/base-path.ts";
import { generateOpenApiDocument } from "./openapi-document.ts";
import { protectedResourceMetadata, protectedResourceMetadataPath } from "./protected-resource-metadata.ts";

/**
 * The resource server's documents: protected resource metadata and the OpenAPI document. The
 * procedures themselves are served by `procedure-routes.ts`. When `{base_url}` has a path, each is
 * served under it as well as at the root (see `resourceRootsOf`).
 */
export function resourceDocumentRoutes(context: PlatformContext): Hono<AppEnv> {
  const metadata = protectedResourceMetadata(context.config);
  const basePath = basePathOf(context.config.baseUrl);
  let openApiDocument: Promise<unknown> | undefined;

  const routes = new Hono<AppEnv>();
  routes.get(protectedResourceMetadataPath, (c) => c.json(metadata));
  if (basePath !== "") routes.get(`${protectedResourceMetadataPath}${basePath}`, (c) => c.json(metadata));
  for (const prefix of resourceRootsOf(context.config.baseUrl)) {
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
