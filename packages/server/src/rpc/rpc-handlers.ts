import { OpenAPIHandler } from "@orpc/openapi/node";
import { ORPCError, ValidationError } from "@orpc/server";
import { BodyLimitPlugin, RPCHandler } from "@orpc/server/node";
import type { StandardHandleResult } from "@orpc/server/standard";
import type { InputIssue } from "@weft/contract";
import { bearerChallenge } from "./bearer-authentication.ts";
import type { RpcInitialContext } from "./context.ts";
import { router } from "./router.ts";
import { refuseUnstorableInput } from "./storable-input.ts";

/** Largest RPC request body; larger ones get 413 before the procedure runs. */
/** Large enough for `deployments.create`, which carries a bundle of up to 10 MiB beside its manifest. */
export const rpcBodyLimitBytes = 12 * 1024 * 1024;

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
 * input validation failure gains its field issues); anything else is logged with the request id
 * and becomes a bare INTERNAL_SERVER_ERROR.
 */
function toPublicError(error: unknown, context: RpcInitialContext): unknown {
  if (error instanceof ORPCError) {
    if (error.code === "BAD_REQUEST" && error.cause instanceof ValidationError) {
      return new ORPCError("BAD_REQUEST", {
        status: 400,
        message: "Input validation failed",
        data: { issues: toInputIssues(error.cause) },
        cause: error.cause,
      });
    }
    if (error.status < 500) return error;
  }
  context.requestLogger().error({ err: error }, "RPC procedure failed");
  return new ORPCError("INTERNAL_SERVER_ERROR", { status: 500, message: internalErrorMessage(context.requestId) });
}

/** The one wording of a 500 on `/rpc` and `/api`: the request id to quote, and nothing of what went wrong. */
export function internalErrorMessage(requestId: string): string {
  return `Unexpected server error; quote request id ${requestId}.`;
}

/** What the handlers need beyond the router: where a 401 tells the caller to look for how to authenticate. */
export interface RpcHandlerOptions {
  protectedResourceMetadataUrl: string;
}

function handlerOptions(options: RpcHandlerOptions) {
  return {
    plugins: [new BodyLimitPlugin<RpcInitialContext>({ maxBodySize: rpcBodyLimitBytes })],
    rootInterceptors: [
      async ({ next, context }: { next: () => Promise<StandardHandleResult>; context: RpcInitialContext }) => {
        const result = await next();
        if (result.matched && result.response.status === 401) {
          const challenge = bearerChallenge(context.authentication, options.protectedResourceMetadataUrl);
          if (challenge !== undefined) result.response.headers["www-authenticate"] = challenge;
        }
        return result;
      },
    ],
    clientInterceptors: [
      async ({ next, context }: { next: () => Promise<unknown>; context: RpcInitialContext }) => {
        try {
          return await next();
        } catch (error) {
          throw toPublicError(error, context);
        }
      },
      refuseUnstorableInput,
    ],
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
