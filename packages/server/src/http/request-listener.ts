import type { RequestListener } from "node:http";
import { getRequestListener } from "@hono/node-server";
import type { PlatformContext } from "../platform-context.ts";
import { createApp } from "./app.ts";
import { securityHeaderList } from "./security-headers.ts";
import { answeringAfterTheBody } from "./unread-body.ts";

export interface PlatformRequestListener {
  listener: RequestListener;
  close(): Promise<void>;
}

/**
 * What node:http calls for each request of one platform process: the Hono app, every surface
 * included, its early answers held until the request's body is read (`unread-body.ts`).
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
  const { app, close } = createApp(context, headers);
  // The node server's own clean-up of an unread body closes the connection after 500 ms;
  // answeringAfterTheBody reads that body instead, before the answer.
  const listener = getRequestListener(app.fetch, { autoCleanupIncoming: false });
  return { listener: answeringAfterTheBody(listener, context.timers), close };
}
