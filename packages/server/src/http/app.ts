import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { authorizationServerMetadataRoute, authRoutes } from "../auth/auth-routes.ts";
import { databaseUnavailableRetryAfterSeconds, isDatabaseUnavailable } from "../db/database-unavailable.ts";
import { mountIngressRoutes } from "../ingress/ingress-routes.ts";
import { mailboxRoutes } from "../mail/mailbox-routes.ts";
import type { PlatformContext } from "../platform-context.ts";
import { procedurePathPrefixes, procedureRoutes, studioProcedurePathPrefixes } from "../rpc/procedure-routes.ts";
import { resourceDocumentRoutes } from "../rpc/resource-document-routes.ts";
import { basePathOf } from "../shared/base-path.ts";
import { studioRoutes } from "../studio/routes/studio-routes.ts";
import type { AppEnv } from "./app-env.ts";
import { defaultBodyLimitBytes } from "./body-limit.ts";
import { crossOriginAccess } from "./cors.ts";
import { jsonError } from "./errors.ts";
import { faviconRoutes } from "./favicon.ts";
import { healthRoutes } from "./health-routes.ts";
import { homePageRoutes } from "./home-page.ts";
import { requestContext, requestLogger } from "./request-context.ts";
import { type SecurityHeaderList, securityHeaders } from "./security-headers.ts";

export interface PlatformApp {
  app: Hono<AppEnv>;
  /** Releases what the routes hold beyond a request (the API's credential cache, unwritten credential uses). */
  close(): Promise<void>;
}

/**
 * Builds the HTTP application of one platform process, the only routing table and middleware
 * chain of every surface: request id and access log, security headers, CORS, body limit, then each
 * surface's routes, and the platform's 404 and 500.
 */
export function createApp(context: PlatformContext, headers: SecurityHeaderList): PlatformApp {
  const app = new Hono<AppEnv>();
  const api = context.config.roles.has("api") ? procedureRoutes(context) : undefined;
  // Webhooks and hosted forms limit bodies on their routes, answering in their own shapes; the
  // API per procedure, in oRPC's.
  const ownBodyLimitPrefixes = [
    "/triggers/",
    ...(api === undefined
      ? []
      : [
          ...procedurePathPrefixes(context.config.baseUrl).map(({ prefix }) => `${prefix}/`),
          ...studioProcedurePathPrefixes(context.config.baseUrl).map((prefix) => `${prefix}/`),
        ]),
  ];
  app.use(requestContext(context.logger));
  app.use(securityHeaders(headers));
  app.use(
    crossOriginAccess({ authPath: basePathOf(context.config.authUrl), basePath: basePathOf(context.config.baseUrl) }),
  );
  const platformBodyLimit = bodyLimit({
    maxSize: defaultBodyLimitBytes,
    // The unread rest of the body is read before the answer goes out (http/unread-body.ts).
    onError: (c) =>
      jsonError(c, 413, "payload_too_large", `The request body is larger than ${defaultBodyLimitBytes} bytes.`),
  });
  // GET and HEAD carry no body to limit (and asking the request for one would make a Web Request of it).
  app.use((c, next) => {
    const path = c.req.path;
    return c.req.method === "GET" || c.req.method === "HEAD" || ownBodyLimitPrefixes.some((p) => path.startsWith(p))
      ? next()
      : platformBodyLimit(c, next);
  });
  app
    .route("/", healthRoutes(context.database, context.sandbox))
    .route("/", homePageRoutes(context.config))
    .route("/", faviconRoutes());
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
  if (outbox !== undefined) app.route("/", mailboxRoutes(outbox, context.config.baseUrl));
  if (context.config.roles.has("ingress")) mountIngressRoutes(app, context);
  if (api !== undefined) {
    app.route("/", resourceDocumentRoutes(context)).route("/", api.routes).route("/", studioRoutes(context));
  }
  app.notFound((c) => jsonError(c, 404, "not_found", `No route for ${c.req.method} ${c.req.path}.`));
  app.onError((error, c) => {
    if (isDatabaseUnavailable(error)) {
      requestLogger(c).warn({ err: error }, "request refused: the database is unavailable");
      c.header("Retry-After", String(databaseUnavailableRetryAfterSeconds));
      return jsonError(c, 503, "unavailable", "The service is briefly unavailable; send the request again shortly.");
    }
    requestLogger(c).error({ err: error }, "unhandled error");
    return jsonError(c, 500, "internal_error", `Something went wrong; quote request id ${c.get("requestId")}.`);
  });
  return { app, close: async () => api?.close() };
}
