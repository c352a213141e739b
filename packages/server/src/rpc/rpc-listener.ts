import type { IncomingMessage, ServerResponse } from "node:http";
import { logRequestCompleted } from "../http/request-context.ts";
import { requestIdFor } from "../http/request-id.ts";
import type { SecurityHeaderList } from "../http/security-headers.ts";
import type { PlatformContext } from "../platform-context.ts";
import { basePathOf } from "../shared/base-path.ts";
import type { Logger } from "../shared/logger.ts";
import { authenticateBearer } from "./bearer-authentication.ts";
import { createPrincipalResolver } from "./principal-cache.ts";
import { procedureBodyLimitBytes, procedureOfPath } from "./procedure-body-limits.ts";
import { protectedResourceMetadataUrl } from "./protected-resource-metadata.ts";
import {
  createOpenApiHandler,
  createRpcHandler,
  internalErrorMessage,
  type RpcHandlerOptions,
} from "./rpc-handlers.ts";

export interface RpcListener {
  /** Serves the request when its path is under `/rpc/` or `/api/`; answers false otherwise. */
  serve(incoming: IncomingMessage, outgoing: ServerResponse): boolean;
  close(): void;
}

type Protocol = "rpc" | "api";

/**
 * Where the API answers: `/rpc` and `/api`, and, when `{base_url}` has a path, the same under that
 * path too, so it works both behind a proxy that strips the path and behind one that passes it on.
 */
function apiPathPrefixes(baseUrl: string): { prefix: string; protocol: Protocol }[] {
  const basePath = basePathOf(baseUrl);
  const roots = basePath === "" ? [""] : [basePath, ""];
  return roots.flatMap((root) => [
    { prefix: `${root}/rpc`, protocol: "rpc" as const },
    { prefix: `${root}/api`, protocol: "api" as const },
  ]);
}

function sendJson(outgoing: ServerResponse, status: number, body: unknown): void {
  if (outgoing.headersSent) {
    outgoing.destroy();
    return;
  }
  outgoing.statusCode = status;
  outgoing.setHeader("content-type", "application/json");
  outgoing.end(JSON.stringify(body));
}

/**
 * The RPC API (`/rpc`, oRPC's protocol) and the same procedures as plain JSON (`/api`), served on
 * Node's request and response directly. Going through the web-standard Request and Response that
 * the rest of the HTTP app uses cost more than the procedures of a typical call (see
 * docs/decisions.md, "The RPC API is served on Node's request and response"). Every answer carries the request id and the security headers
 * the app sends; bearer authentication happens here, once per request, and the procedures'
 * middleware refuses calls that did not pass it.
 */
export function createRpcListener(context: PlatformContext, securityHeaders: SecurityHeaderList): RpcListener {
  const resolver = createPrincipalResolver({
    db: context.database.db,
    clock: context.clock,
    revocations: context.credentialRevocations,
  });
  const metadataUrl = protectedResourceMetadataUrl(context.config.baseUrl);
  const prefixes = apiPathPrefixes(context.config.baseUrl).map((entry) => ({ ...entry, under: `${entry.prefix}/` }));
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
  let headerList: [string, string][] | undefined;
  void securityHeaders.then((list) => {
    headerList = list;
  });

  async function handle(
    { prefix, protocol }: { prefix: string; protocol: Protocol },
    incoming: IncomingMessage,
    outgoing: ServerResponse,
    requestId: string,
    logger: () => Logger,
  ): Promise<void> {
    for (const [name, value] of headerList ?? (await securityHeaders)) outgoing.setHeader(name, value);
    try {
      const authentication = await authenticateBearer(incoming.headers.authorization, resolver);
      const procedure = procedureOfPath(pathOf(incoming.url ?? "").slice(prefix.length));
      const handler = handlerFor(protocol, procedureBodyLimitBytes(procedure));
      const { matched } = await handler.handle(incoming, outgoing, {
        // Every prefix starts with "/": it is `{base path}/rpc` or `{base path}/api`.
        prefix: prefix as `/${string}`,
        context: {
          platform: context,
          requestId,
          requestLogger: logger,
          authentication,
          refusedScope: {},
        },
      });
      if (!matched) {
        sendJson(outgoing, 404, { error: "not_found", message: `No procedure at ${pathOf(incoming.url ?? "")}.` });
      }
    } catch (error) {
      logger().error({ err: error }, "unhandled error");
      // Shaped and worded as the procedures' own 500s, so that a client sees one kind of failure per surface.
      const body = {
        defined: true,
        code: "INTERNAL_SERVER_ERROR",
        status: 500,
        message: internalErrorMessage(requestId),
      };
      sendJson(outgoing, 500, prefix === "/rpc" ? { json: body } : body);
    }
  }

  return {
    serve: (incoming, outgoing) => {
      const url = incoming.url ?? "";
      const prefix = prefixes.find((candidate) => url.startsWith(candidate.under));
      if (prefix === undefined) return false;
      const requestId = requestIdFor(headerValue(incoming.headers["x-request-id"]));
      outgoing.setHeader("X-Request-Id", requestId);
      // Made on first use: a child logger costs more than most calls that never log anything.
      let requestLogger: Logger | undefined;
      const logger = () => {
        requestLogger ??= context.logger.child({ requestId });
        return requestLogger;
      };
      if (context.logger.isLevelEnabled("info")) {
        const startedAt = performance.now();
        outgoing.once("finish", () => {
          logRequestCompleted(logger(), {
            method: incoming.method,
            path: pathOf(url),
            status: outgoing.statusCode,
            startedAt,
          });
        });
      }
      void handle(prefix, incoming, outgoing, requestId, logger);
      return true;
    },
    close: resolver.close,
  };
}

function pathOf(url: string): string {
  return url.split("?")[0] ?? url;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
