import type { Hono } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import { createClientIpResolver } from "../http/client-ip.ts";
import type { PlatformContext } from "../platform-context.ts";
import { createRateLimiter } from "../rate-limit/rate-limiter.ts";
import { hostedFormRoutes } from "./hosted-form-routes.ts";
import { createIngressContext } from "./ingress-context.ts";
import { programmaticFormRoutes } from "./programmatic-form-routes.ts";
import { tokenRoutes } from "./token-routes.ts";
import { webhookRoutes } from "./webhook-routes.ts";

/**
 * Mounts the public ingress: hosted forms, webhooks and wait tokens under `/triggers`, and the
 * programmatic form endpoint under the path of `{base_url}`.
 */
export function mountIngressRoutes(app: Hono<AppEnv>, context: PlatformContext): void {
  const ingress = createIngressContext(context);
  const clientIps = createClientIpResolver(context.config.trustedProxies);
  // Hosted and programmatic submissions share the configured rate, each endpoint with its own count.
  const formLimiter = (name: string) =>
    createRateLimiter(context.database, { name, points: context.config.formsRateLimit, windowSeconds: 60 });
  app.route("/", hostedFormRoutes(ingress, { limiter: formLimiter("ingress-hosted-forms"), clientIps }));
  app.route("/", webhookRoutes(ingress));
  app.route("/", tokenRoutes(ingress));
  app.route(
    new URL(context.config.baseUrl).pathname,
    programmaticFormRoutes(ingress, { limiter: formLimiter("ingress-forms"), clientIps }),
  );
}
