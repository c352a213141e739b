import { OpenAPIHandler } from "@orpc/openapi/node";
import { ORPCError, ValidationError } from "@orpc/server";
import { BodyLimitPlugin, RPCHandler } from "@orpc/server/node";
import type { StandardHandleResult } from "@orpc/server/standard";
import type { InputIssue } from "@weft/contract";
import { databaseUnavailableRetryAfterSeconds, isDatabaseUnavailable } from "../db/database-unavailable.ts";
import { bearerChallenge, insufficientScopeChallenge } from "./bearer-authentication.ts";
import type { RpcInitialContext } from "./context.ts";
import { router } from "./router.ts";
import { serviceUnavailable } from "./rpc-errors.ts";
import { refuseUnstorableInput } from "./storable-input.ts";

function toInputIssues(validation: ValidationError): InputIssue[] {
  return validation.issues.map((issue) => ({
    path: (issue.path ?? []).map((segment) => {
      const key = typeof segment === "object" ? segment.key : segment;
      return typeof key === "number" ? key : String(key);
    }),
    message: issue.message,
  }));
}

/**
 * What a client may see of an error thrown by a procedure: our own ORPCErrors as they are (an
 * input validation failure gains its field issues); a database that cannot be reached makes a
 * SERVICE_UNAVAILABLE (503); anything else is logged with the request id and becomes a bare
 * INTERNAL_SERVER_ERROR.
 */
function publicErrorOf(error: unknown, context: RpcInitialContext): ORPCError<string, unknown> {
  if (error instanceof ORPCError) {
    if (error.code === "BAD_REQUEST" && error.cause instanceof ValidationError) {
      return new ORPCError("BAD_REQUEST", {
        status: 400,
        message: "Input validation failed",
        data: { issues: toInputIssues(error.cause) },
        cause: error.cause,
      });
    }
    // A refusal to retry later (a backlogged queue) is ours to answer; other 5xx hide what broke.
    if (error.status < 500 || error.code === "SERVICE_UNAVAILABLE") return error;
  }
  if (isDatabaseUnavailable(error)) {
    context.requestLogger().warn({ err: error }, "RPC procedure refused: the database is unavailable");
    return serviceUnavailable("The service is briefly unavailable; send the request again shortly.", {
      retryAfterSeconds: databaseUnavailableRetryAfterSeconds,
    });
  }
  context.requestLogger().error({ err: error }, "RPC procedure failed");
  return new ORPCError("INTERNAL_SERVER_ERROR", { status: 500, message: internalErrorMessage(context.requestId) });
}

/**
 * The public error of what a procedure threw (`publicErrorOf`), with what its answer's headers
 * need noted on the context: a missing scope for the 403's challenge, `data.retryAfterSeconds` for
 * `Retry-After`.
 */
function toPublicError(error: unknown, context: RpcInitialContext): ORPCError<string, unknown> {
  const shaped = publicErrorOf(error, context);
  const data = shaped.data as { missingScope?: unknown; retryAfterSeconds?: unknown } | undefined;
  if (shaped.code === "FORBIDDEN" && typeof data?.missingScope === "string") {
    context.refusedScope.scope = data.missingScope;
  }
  if (typeof data?.retryAfterSeconds === "number") context.retryAfter.seconds = data.retryAfterSeconds;
  return shaped;
}

/** The one wording of a 500 on `/rpc` and `/api`: the request id to quote, and nothing of what went wrong. */
export function internalErrorMessage(requestId: string): string {
  return `Unexpected server error; quote request id ${requestId}.`;
}

/**
 * What the handlers need beyond the router: where a 401 or 403 tells the caller to look for how to
 * authenticate, and the largest request body they read (413 above).
 */
export interface RpcHandlerOptions {
  protectedResourceMetadataUrl: string;
  maxBodyBytes: number;
}

/** The `WWW-Authenticate` challenge a refusal carries: RFC 6750 §3 for a 401, §3.1 for a missing scope. */
function challengeFor(status: number, context: RpcInitialContext, metadataUrl: string): string | undefined {
  if (status === 401) return bearerChallenge(context.authentication, metadataUrl);
  const scope = context.refusedScope.scope;
  if (status === 403 && scope !== undefined) return insufficientScopeChallenge(scope, metadataUrl);
  return undefined;
}

/**
 * What wraps every procedure call, whichever surface makes it (`/rpc`, `/api`, MCP tools): errors
 * made fit for the caller (see `toPublicError`), and input that cannot be stored refused first.
 */
export const procedureCallInterceptors = [
  async <T>({ next, context }: { next: () => Promise<T>; context: RpcInitialContext }): Promise<T> => {
    try {
      return await next();
    } catch (error) {
      throw toPublicError(error, context);
    }
  },
  refuseUnstorableInput,
];

function handlerOptions(options: RpcHandlerOptions) {
  return {
    plugins: [new BodyLimitPlugin<RpcInitialContext>({ maxBodySize: options.maxBodyBytes })],
    rootInterceptors: [
      async ({ next, context }: { next: () => Promise<StandardHandleResult>; context: RpcInitialContext }) => {
        const result = await next();
        if (result.matched) {
          const challenge = challengeFor(result.response.status, context, options.protectedResourceMetadataUrl);
          if (challenge !== undefined) result.response.headers["www-authenticate"] = challenge;
          const retryAfter = context.retryAfter.seconds;
          if (retryAfter !== undefined) result.response.headers["retry-after"] = String(retryAfter);
        }
        return result;
      },
    ],
    // A copy: oRPC's plugins add their own interceptors to the list they are given.
    clientInterceptors: [...procedureCallInterceptors],
  };
}

/** oRPC's RPC protocol at `{base_url}/rpc` (what the client library and CLI speak). */
export function createRpcHandler(options: RpcHandlerOptions): RPCHandler<RpcInitialContext> {
  return new RPCHandler<RpcInitialContext>(router, handlerOptions(options));
}

/** The same procedures as plain JSON over HTTP at `{base_url}/api`, described by `/openapi.json`. */
export function createOpenApiHandler(options: RpcHandlerOptions): OpenAPIHandler<RpcInitialContext> {
  return new OpenAPIHandler<RpcInitialContext>(router, handlerOptions(options));
}
