import { type ClientContext, createORPCClient, ORPCError } from "@orpc/client";
import { type LinkFetchClientOptions, RPCLink } from "@orpc/client/fetch";
import type { StandardLinkOptions } from "@orpc/client/standard";
import type { ContractRouterClient } from "@orpc/contract";
import type { Contract, RpcErrorCode } from "@weft/contract";

/** The typed API: `client.projects.list({...})`, one method per procedure of the contract. */
export type WeftClient = ContractRouterClient<Contract>;

export interface ClientOptions {
  /** The API's base URL, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /**
   * The bearer credential from agent registration (or the CLI's login). Omitted by a browser page
   * whose session cookie authenticates it (Studio).
   */
  token?: string;
  /** Where the RPC API is mounted under `baseUrl`: `/rpc` unless told (Studio's is `/studio/rpc`). */
  rpcPath?: string;
  /** Extra headers read before each call, e.g. Studio's CSRF token, which changes at sign-in. */
  headers?: () => Record<string, string>;
  /** Replaces the global `fetch`, e.g. to add a proxy or logging. */
  fetch?: typeof globalThis.fetch;
}

/**
 * A client of the RPC API at `{baseUrl}/rpc`, typed from the contract. A refused call rejects with
 * an `RpcError` whose `code` is one of the catalogue (`UNAUTHORIZED`, `FORBIDDEN`, `BAD_REQUEST`,
 * `NOT_FOUND`, `INTERNAL_SERVER_ERROR`...) and whose `message` says why.
 */
export function createClient(options: ClientOptions): WeftClient {
  const link = new RPCLink({
    url: `${options.baseUrl.replace(/\/+$/, "")}${options.rpcPath ?? "/rpc"}`,
    ...sharedLinkOptions(options),
  });
  return createORPCClient<WeftClient>(link);
}

/** What every link of a client shares: its headers, its `fetch`, and the request id kept for `requestIdOf`. */
export function sharedLinkOptions(options: Pick<ClientOptions, "token" | "headers" | "fetch">): Pick<
  LinkFetchClientOptions<ClientContext>,
  "fetch"
> &
  Pick<StandardLinkOptions<ClientContext>, "interceptors" | "clientInterceptors"> & {
    headers: () => Record<string, string>;
  } {
  return {
    headers: () => ({
      ...options.headers?.(),
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
    }),
    ...(options.fetch === undefined
      ? {}
      : { fetch: (request, init) => options.fetch?.(request, init) as Promise<Response> }),
    interceptors: [
      async ({ next, ...call }) => {
        const answer: AnswerOfCall = {};
        try {
          return await next({ ...call, context: { ...call.context, [answerSlot]: answer } });
        } catch (error) {
          if (typeof error === "object" && error !== null && answer.requestId !== undefined) {
            requestIds.set(error, answer.requestId);
          }
          throw error;
        }
      },
    ],
    clientInterceptors: [
      async ({ next, context }) => {
        const response = await next();
        const requestId = response.headers["x-request-id"];
        const answer = context[answerSlot] as AnswerOfCall | undefined;
        if (answer !== undefined && typeof requestId === "string") answer.requestId = requestId;
        return response;
      },
    ],
  };
}

/** What one call's response said about itself, carried from the response to the error it decodes to. */
interface AnswerOfCall {
  requestId?: string;
}
const answerSlot = Symbol("answer of call");
const requestIds = new WeakMap<object, string>();

/**
 * The request id the server gave the call that failed with this error (its `X-Request-Id`), to quote
 * when reporting it; undefined when no response came (a network failure).
 */
export function requestIdOf(error: unknown): string | undefined {
  return typeof error === "object" && error !== null ? requestIds.get(error) : undefined;
}

/** An error answered by the RPC API: `code`, `status`, `message` and, for some codes, `data`. */
export { ORPCError as RpcError };

/** Whether an error is an RPC error, optionally of the given code. */
export function isRpcError(error: unknown, code?: RpcErrorCode): error is ORPCError<string, unknown> {
  return error instanceof ORPCError && (code === undefined || error.code === code);
}
