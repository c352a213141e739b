import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import type { ClientIpResolver } from "../http/client-ip.ts";
import { requestLogger } from "../http/request-context.ts";
import { clientKeyOf } from "./client-key.ts";
import type { RateLimiter } from "./rate-limiter.ts";

/** How a surface answers, in its own error shape, when a client is limited or the counter store fails. */
export interface RateLimitResponses {
  /** Called with `Retry-After` already set. */
  limited(c: Context<AppEnv>, retryAfterSeconds: number): Response;
  storeFailed(c: Context<AppEnv>): Response;
}

/**
 * Limits requests per client (see `client-key.ts`: an IPv4 address or an IPv6 /64), and per
 * whatever `scopeOf` names within the endpoint (a form), when given.
 */
export function limitPerClientIp(
  limiter: RateLimiter,
  clientIps: ClientIpResolver,
  responses: RateLimitResponses,
  scopeOf?: (c: Context<AppEnv>) => string,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const client = clientKeyOf(c, clientIps);
    let decision: Awaited<ReturnType<RateLimiter["consume"]>>;
    try {
      decision = await limiter.consume(scopeOf === undefined ? client : `${client}|${scopeOf(c)}`);
    } catch (error) {
      requestLogger(c).error({ err: error }, "rate limit counters unavailable");
      return responses.storeFailed(c);
    }
    if (!decision.allowed) {
      c.header("Retry-After", String(decision.retryAfterSeconds));
      return responses.limited(c, decision.retryAfterSeconds);
    }
    await next();
  };
}
