import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { authorizationServerMetadataRoute, authRoutes } from "../auth/auth-routes.ts";
import { mountIngressRoutes } from "../ingress/ingress-routes.ts";
import { mailboxRoutes } from "../mail/mailbox-routes.ts";
import type { PlatformContext } from "../platform-context.ts";
import { rpcRoutes } from "../rpc/rpc-routes.ts";
import type { AppEnv } from "./app-env.ts";
import { defaultBodyLimitBytes } from "./body-limit.ts";
import { jsonError } from "./errors.ts";
import { healthRoutes } from "./health-routes.ts";
import { requestContext, requestLogger } from "./request-context.ts";
import { type SecurityHeaderList, securityHeaders } from "./security-headers.ts";

const ownBodyLimitPaths = /^\/triggers\//;

/**
 * Builds the HTTP application of one platform process: shared middleware, then each surface's
 * routes. The RPC API itself is served beside it (see `request-listener.ts`).
 */
export function createApp(context: PlatformContext, headers: SecurityHeaderList): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(requestContext(context.logger));
  app.use(securityHeaders(headers));
  const platformBodyLimit = bodyLimit({
    maxSize: defaultBodyLimitBytes,
    onError: (c) => {
      // The unread rest of the body is still on the socket: close it rather than reuse it.
      c.header("Connection", "close");
      return jsonError(c, 413, "payload_too_large", `The request body is larger than ${defaultBodyLimitBytes} bytes.`);
    },
  });
  // Hosted forms and webhooks set their limits on their routes, answering in their own shapes.
  // GET and HEAD carry no body to limit (and asking the request for one would make a Web Request of it).
  app.use((c, next) =>
    c.req.method === "GET" || c.req.method === "HEAD" || ownBodyLimitPaths.test(c.req.path)
      ? next()
      : platformBodyLimit(c, next),
  );
  app.route("/", healthRoutes(context.database, context.sandbox));
  if (context.config.roles.has("auth")) {
    // The authorization server answers under the path of {auth_url}, which may differ from "/";
    // RFC 8414 §3 then places its metadata at the root, suffixed with that path.
    const authPath = new URL(context.config.authUrl).pathname;
    app.route(authPath, authRoutes(context));
    if (authPath !== "/") {
      app.get(`/.well-known/oauth-authorization-server${authPath}`, authorizationServerMetadataRoute(context.config));
    }
  }
  const outbox = context.mailer.outbox;
  if (outbox !== undefined) app.route("/", mailboxRoutes(outbox));
  if (context.config.roles.has("ingress")) mountIngressRoutes(app, context);
  if (context.config.roles.has("api")) app.route("/", rpcRoutes(context));
  app.notFound((c) => jsonError(c, 404, "not_found", `No route for ${c.req.method} ${c.req.path}.`));
  app.onError((error, c) => {
    requestLogger(c).error({ err: error }, "unhandled error");
    return jsonError(c, 500, "internal_error", `Something went wrong; quote request id ${c.get("requestId")}.`);
  });
  return app;
}
