import { randomUUID } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import type { Logger } from "../shared/logger.ts";
import type { AppEnv } from "./app-env.ts";

const acceptableRequestId = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Gives every request an id (a caller's `X-Request-Id` when it is sane, else a new one), a child
 * logger that stamps it on every line, and one access-log line when the response is ready.
 */
export function requestContext(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const offered = c.req.header("x-request-id");
    const requestId = offered !== undefined && acceptableRequestId.test(offered) ? offered : `req_${randomUUID()}`;
    const requestLogger = logger.child({ requestId });
    c.set("requestId", requestId);
    c.set("logger", requestLogger);
    const started = performance.now();
    await next();
    c.header("X-Request-Id", requestId);
    requestLogger.info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
      },
      "request completed",
    );
  };
}
