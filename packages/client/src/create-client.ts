import { createORPCClient, ORPCError } from "@orpc/client";
import { RPCLink } from "@orpc/client/fetch";
import type { ContractRouterClient } from "@orpc/contract";
import type { Contract, RpcErrorCode } from "@weft/contract";

/** The typed API: `client.projects.list({...})`, one method per procedure of the contract. */
export type WeftClient = ContractRouterClient<Contract>;

export interface ClientOptions {
  /** The API's base URL, e.g. `http://localhost:3000`. */
  baseUrl: string;
  /** The bearer credential from agent registration (or the CLI's login). */
  token: string;
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
    url: `${options.baseUrl.replace(/\/+$/, "")}/rpc`,
    headers: { authorization: `Bearer ${options.token}` },
    ...(options.fetch === undefined
      ? {}
      : { fetch: (request, init) => options.fetch?.(request, init) as Promise<Response> }),
  });
  return createORPCClient<WeftClient>(link);
}

/** An error answered by the RPC API: `code`, `status`, `message` and, for some codes, `data`. */
export { ORPCError as RpcError };

/** Whether an error is an RPC error, optionally of the given code. */
export function isRpcError(error: unknown, code?: RpcErrorCode): error is ORPCError<string, unknown> {
  return error instanceof ORPCError && (code === undefined || error.code === code);
}
