import { RESPONSE_ALREADY_SENT } from "@hono/node-server/utils/response";
import { studioCsrfHeader } from "@weft/contract";
import { type Context, Hono } from "hono";
import { createLastUsedRecorder } from "../agents/last-used-recorder.ts";
import type { AppEnv } from "../http/app-env.ts";
import { jsonError } from "../http/errors.ts";
import { requestLogger } from "../http/request-context.ts";
import { mcpRoutes } from "../mcp/mcp-routes.ts";
import type { PlatformContext } from "../platform-context.ts";
import { resourceRootsOf } from "../shared/base-path.ts";
import { authenticateBearer } from "./bearer-authentication.ts";
import { eventStreamRoute } from "./event-stream-route.ts";
import { createPrincipalResolver } from "./principal-cache.ts";
import { procedureBodyLimitBytes, procedureOfPath } from "./procedure-body-limits.ts";
import { protectedResourceMetadataUrl } from "./protected-resource-metadata.ts";
import {
  createOpenApiHandler,
  createRpcHandler,
  internalErrorMessage,
  type RpcHandlerOptions,
} from "./rpc-handlers.ts";
import { studioEventStreamRoute } from "./studio-event-stream-route.ts";
import { studioSessionAuthenticator } from "./studio-session-authentication.ts";

type Protocol = "rpc" | "api";

/** Where the procedures answer: `/rpc` (oRPC's protocol) and `/api` (plain JSON), under each resource root. */
export function procedurePathPrefixes(baseUrl: string): { prefix: `/${string}`; protocol: Protocol }[] {
  return resourceRootsOf(baseUrl).flatMap((root) => [
    { prefix: `${root}/rpc`, protocol: "rpc" },
    { prefix: `${root}/api`, protocol: "api" },
  ]);
}

/** Where Studio calls the same procedures, with its session cookie: `/studio/rpc` under each resource root. */
export function studioProcedurePathPrefixes(baseUrl: string): `/${string}`[] {
  return resourceRootsOf(baseUrl).map((root) => `${root}/studio/rpc` as const);
}

export interface ProcedureRoutes {
  routes: Hono<AppEnv>;
  /** Stops the credential cache listening for revocations and writes the credential uses not yet stored. */
  close(): Promise<void>;
}

/**
 * The RPC API (`/rpc`), the same procedures as plain JSON (`/api`) and for Studio's browser
 * session (`/studio/rpc`), as routes of the app: they get the request id, security headers, CORS
 * and access log of every other route, then hand Node's request and response to oRPC's node
 * handlers, which read the body and write the answer themselves. Handing oRPC a Web `Request` instead, and reading its `Response` back into Node's,
 * cost more than a typical procedure (see docs/decisions/0011-one-http-pipeline.md). Authentication
 * (a bearer credential, or on `/studio/rpc` the session cookie and its CSRF token) happens here,
 * once per request; the procedures' middleware refuses calls that did not pass it.
 */
export function procedureRoutes(context: PlatformContext): ProcedureRoutes {
  const lastUsed = createLastUsedRecorder({ db: context.database.db, timers: context.timers, logger: context.logger });
  const resolver = createPrincipalResolver({
    db: context.database.db,
    clock: context.clock,
    revocations: context.credentialRevocations,
    membershipChanges: context.membershipChanges,
    lastUsed,
  });
  const metadataUrl = protectedResourceMetadataUrl(context.config.baseUrl);
  // One handler per protocol and body limit: oRPC's body limit is fixed per handler.
  const handlers = new Map<string, ReturnType<typeof createRpcHandler> | ReturnType<typeof createOpenApiHandler>>();
  const handlerFor = (protocol: Protocol, maxBodyBytes: number) => {
    const key = `${protocol}:${maxBodyBytes}`;
    let handler = handlers.get(key);
    if (handler === undefined) {
      const options: RpcHandlerOptions = { protectedResourceMetadataUrl: metadataUrl, maxBodyBytes };
      handler = protocol === "rpc" ? createRpcHandler(options) : createOpenApiHandler(options);
      handlers.set(key, handler);
    }
    return handler;
  };

  const routes = new Hono<AppEnv>();
  routes.route("/", mcpRoutes(context, resolver));
  const eventStream = eventStreamRoute(context, resolver, metadataUrl);
  const authenticateStudioSession = studioSessionAuthenticator(context, lastUsed);
  const studioEvents = studioEventStreamRoute(context, studioSessionAuthenticator(context, lastUsed, { csrf: false }));
  for (const root of resourceRootsOf(context.config.baseUrl)) routes.get(`${root}/studio/events`, studioEvents);
  const mounts = [
    ...procedurePathPrefixes(context.config.baseUrl).map((mount) => ({ ...mount, studio: false })),
    ...studioProcedurePathPrefixes(context.config.baseUrl).map((prefix) => ({
      prefix,
      protocol: "rpc" as const,
      studio: true,
    })),
  ];
  for (const { prefix, protocol, studio } of mounts) {
    // The event stream is no procedure: it is matched before the procedures' catch-all below.
    if (protocol === "api") routes.get(`${prefix}/events`, eventStream);
    routes.all(`${prefix}/*`, async (c, next) => {
      const path = c.req.path;
      // Hono's `/rpc/*` also matches `/rpc`, which names no procedure and is no API path.
      if (path.length === prefix.length) return next();
      const incoming = c.env?.incoming;
      const outgoing = c.env?.outgoing;
      if (incoming === undefined || outgoing === undefined) {
        throw new Error("the RPC API is served on node:http only: Node's request and response are missing");
      }
      try {
        const authentication = studio
          ? await authenticateStudioSession(c)
          : await authenticateBearer(incoming.headers.authorization, resolver);
        if (authentication.status === "csrf-failed") {
          return jsonError(c, 403, "csrf_failed", `Send the session's CSRF token in the ${studioCsrfHeader} header.`);
        }
        const handler = handlerFor(protocol, procedureBodyLimitBytes(procedureOfPath(path.slice(prefix.length))));
        const { matched } = await handler.handle(incoming, outgoing, {
          prefix,
          context: {
            platform: context,
            requestId: c.get("requestId"),
            requestLogger: () => requestLogger(c),
            authentication,
            via: protocol,
            refusedScope: {},
            retryAfter: {},
          },
        });
        if (!matched) return jsonError(c, 404, "not_found", `No procedure at ${path}.`);
        return RESPONSE_ALREADY_SENT;
      } catch (error) {
        requestLogger(c).error({ err: error }, "unhandled error");
        return lastResortError(c, protocol);
      }
    });
  }
  return {
    routes,
    close: async () => {
      resolver.close();
      await lastUsed.close();
    },
  };
}

/**
 * A failure outside any procedure (the procedures' own are shaped by `rpc-handlers.ts`), shaped and
 * worded as the procedures' 500s, so that a client sees one kind of failure per surface.
 */
function lastResortError(c: Context<AppEnv>, protocol: Protocol): Response {
  const outgoing = c.env?.outgoing;
  if (outgoing?.headersSent === true) {
    // Part of an answer is on the wire already: cutting the connection is the only honest end.
    outgoing.destroy();
    return RESPONSE_ALREADY_SENT;
  }
  const body = {
    defined: true,
    code: "INTERNAL_SERVER_ERROR",
    status: 500,
    message: internalErrorMessage(c.get("requestId")),
  };
  return c.json(protocol === "rpc" ? { json: body } : body, 500);
}
