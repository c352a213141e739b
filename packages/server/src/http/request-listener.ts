import type { RequestListener } from "node:http";
import { getRequestListener } from "@hono/node-server";
import type { PlatformContext } from "../platform-context.ts";
import { createRpcListener } from "../rpc/rpc-listener.ts";
import { basePathOf } from "../shared/base-path.ts";
import { createApp } from "./app.ts";
import { createCorsHandler } from "./cors.ts";
import { securityHeaderList } from "./security-headers.ts";

export interface PlatformRequestListener {
  listener: RequestListener;
  close(): void;
}

/**
 * What node:http calls for each request of one platform process: CORS first (see `cors.ts`), then
 * the RPC API on Node's own request and response, every other surface through the Hono app.
 */
export function createRequestListener(context: PlatformContext): PlatformRequestListener {
  const headers = securityHeaderList({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
    },
  });
  const app = getRequestListener(createApp(context, headers).fetch);
  const rpc = context.config.roles.has("api") ? createRpcListener(context, headers) : undefined;
  const cors = createCorsHandler({
    authPath: basePathOf(context.config.authUrl),
    basePath: basePathOf(context.config.baseUrl),
  });
  return {
    listener: (incoming, outgoing) => {
      if (cors(incoming, outgoing)) return;
      if (rpc?.serve(incoming, outgoing) === true) return;
      return app(incoming, outgoing);
    },
    close: () => rpc?.close(),
  };
}
