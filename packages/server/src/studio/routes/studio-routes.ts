import { Hono } from "hono";
import type { AppEnv } from "../../http/app-env.ts";
import { createClientIpResolver } from "../../http/client-ip.ts";
import { jsonError } from "../../http/errors.ts";
import type { PlatformContext } from "../../platform-context.ts";
import { limitPerClientIp } from "../../rate-limit/rate-limit-middleware.ts";
import { createRateLimiter } from "../../rate-limit/rate-limiter.ts";
import { resourceRootsOf } from "../../shared/base-path.ts";
import { shippedStudioDir, studioAppRoutes } from "./studio-app-routes.ts";
import { studioSessionRoutes } from "./studio-session-routes.ts";

/**
 * Studio at `/studio` under each resource root: its sign-in and session API, then the app's files.
 * Its procedures answer at `/studio/rpc`, with the API's (`procedure-routes.ts`).
 */
export function studioRoutes(context: PlatformContext): Hono<AppEnv> {
  const { config } = context;
  const clientIps = createClientIpResolver(config.trustedProxies);
  const limit = (name: "sign-in" | "complete", points: number) =>
    limitPerClientIp(
      createRateLimiter(context.database, { name: `studio-${name}`, points, windowSeconds: 60 }),
      clientIps,
      {
        limited: (c, retryAfterSeconds) =>
          jsonError(c, 429, "rate_limited", `Too many requests; retry in ${retryAfterSeconds} s.`),
        storeFailed: (c) =>
          jsonError(c, 500, "internal_error", `Something went wrong; quote request id ${c.get("requestId")}.`),
      },
    );
  const limits = {
    signIn: limit("sign-in", config.authRateLimits.register),
    complete: limit("complete", config.authRateLimits.claim),
  };
  const app = new Hono<AppEnv>();
  for (const root of resourceRootsOf(config.baseUrl)) {
    const studioPath = `${root}/studio`;
    app.route("/", studioSessionRoutes(context, studioPath, limits));
    app.route("/", studioAppRoutes(studioPath, config.studioDir ?? shippedStudioDir));
  }
  return app;
}
