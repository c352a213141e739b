import type { RequestListener } from "node:http";
import { getRequestListener } from "@hono/node-server";
import type { PlatformContext } from "../platform-context.ts";
import { createApp } from "./app.ts";
import { securityHeaderList } from "./security-headers.ts";

export interface PlatformRequestListener {
  listener: RequestListener;
  close(): Promise<void>;
}

/** What node:http calls for each request of one platform process: the Hono app, every surface included. */
export function createRequestListener(context: PlatformContext): PlatformRequestListener {
  const headers = securityHeaderList({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
    },
  });
  const { app, close } = createApp(context, headers);
  return { listener: getRequestListener(app.fetch), close };
}
