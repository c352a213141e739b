import type { Hono } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import { createClientIpResolver } from "../http/client-ip.ts";
import type { PlatformContext } from "../platform-context.ts";
import { createRateLimiter } from "../rate-limit/rate-limiter.ts";
import { hostedFormRoutes } from "./hosted-form-routes.ts";
import { createIngressContext } from "./ingress-context.ts";
import { programmaticFormRoutes } from "./programmatic-form-routes.ts";
import { webhookRoutes } from "./webhook-routes.ts";

/**
 * Mounts the public ingress (DESIGN.md §8): hosted forms and webhooks under `/triggers`, and the
 * programmatic form endpoint under the path of `{base_url}`.
 */
export function mountIngressRoutes(app: Hono<AppEnv>, context: PlatformContext): void {
  const ingress = createIngressContext(context);
  app.route("/", hostedFormRoutes(ingress));
  app.route("/", webhookRoutes(ingress));
  app.route(
    new URL(context.config.baseUrl).pathname,
    programmaticFormRoutes(ingress, {
      limiter: createRateLimiter(context.database, {
        name: "ingress-forms",
        points: context.config.formsRateLimit,
        windowSeconds: 60,
      }),
      clientIps: createClientIpResolver(context.config.trustedProxies),
    }),
  );
}
