import type { Context, MiddlewareHandler } from "hono";
import type { Logger } from "../shared/logger.ts";
import type { AppEnv } from "./app-env.ts";
import { loggablePath } from "./loggable-path.ts";
import { requestIdFor } from "./request-id.ts";
import { setResponseHeader } from "./response-headers.ts";
import { isAnswerHeld } from "./unread-body.ts";

/**
 * Gives every request an id (a caller's `X-Request-Id` when it is sane, else a new one), echoed in
 * the response, and one access-log line when the response is ready (at level info).
 */
export function requestContext(logger: Logger): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const requestId = requestIdFor(c.req.header("x-request-id"));
    c.set("requestId", requestId);
    c.set("processLogger", logger);
    setResponseHeader(c, "X-Request-Id", requestId);
    if (!logger.isLevelEnabled("info")) return next();
    const startedAt = performance.now();
    await next();
    // A route that answered on Node's response itself (the RPC API) leaves Hono's a placeholder.
    const outgoing = c.env?.outgoing;
    const answered = outgoing !== undefined && (outgoing.headersSent || isAnswerHeld(outgoing));
    const status = answered ? outgoing.statusCode : c.res.status;
    logRequestCompleted(requestLogger(c), { method: c.req.method, path: c.req.path, status, startedAt });
  };
}

/** The access-log line of a request, written once its response is ready. */
export function logRequestCompleted(
  logger: Logger,
  request: { method: string | undefined; path: string; status: number; startedAt: number },
): void {
  logger.info(
    {
      method: request.method,
      path: loggablePath(request.path),
      status: request.status,
      durationMs: Math.round((performance.now() - request.startedAt) * 100) / 100,
    },
    "request completed",
  );
}

/**
 * The logger of this request: every line carries its request id. Made on first use, because a
 * child logger (with its bindings run through redaction) costs more than most requests that never
 * log anything.
 */
export function requestLogger(c: Context<AppEnv>): Logger {
  let logger = c.get("requestLogger");
  if (logger === undefined) {
    logger = c.get("processLogger").child({ requestId: c.get("requestId") });
    c.set("requestLogger", logger);
  }
  return logger;
}
