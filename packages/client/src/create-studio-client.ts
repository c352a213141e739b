import { type ClientLink, createORPCClient, DynamicLink, ORPCError } from "@orpc/client";
import { RPCLink } from "@orpc/client/fetch";
import { getMalformedResponseErrorCode } from "@orpc/client/standard";
import type { ContractRouterClient } from "@orpc/contract";
import { OpenAPILink } from "@orpc/openapi-client/fetch";
import { type Contract, type StudioSessionContract, studioSessionContract } from "@weft/contract";
import { type ClientOptions, sharedLinkOptions } from "./create-client.ts";

/** Studio's one client: the RPC API's procedures, and its sign-in and session under `session`. */
export type StudioClient = ContractRouterClient<Contract & { session: StudioSessionContract }>;

/**
 * The client of a Studio page at `baseUrl`: the procedures go to `/studio/rpc` on the session cookie,
 * `session.*` to the session routes under `/studio/api` (`studioSessionContract`). A refusal of
 * either rejects with an `RpcError` carrying the server's message, its status and its request id.
 */
export function createStudioClient(options: Pick<ClientOptions, "baseUrl" | "headers" | "fetch">): StudioClient {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const procedures = new RPCLink({ url: `${baseUrl}/studio/rpc`, ...sharedLinkOptions(options) });
  const sessionRoutes = new OpenAPILink(
    { session: studioSessionContract },
    {
      url: `${baseUrl}/studio/api`,
      ...sharedLinkOptions(options),
      customErrorResponseBodyDecoder: (body, response) => refusalOf(body, response.status),
    },
  );
  const link = new DynamicLink(
    (_options, path): ClientLink<Record<never, never>> => (path[0] === "session" ? sessionRoutes : procedures),
  );
  return createORPCClient<StudioClient>(link);
}

/** A session route's refusal, `{ error, message }`, as the error an RPC refusal would be. */
function refusalOf(body: unknown, status: number): ORPCError<string, { error: string }> | undefined {
  if (typeof body !== "object" || body === null) return undefined;
  const { error, message } = body as { error?: unknown; message?: unknown };
  if (typeof error !== "string" || typeof message !== "string") return undefined;
  return new ORPCError(getMalformedResponseErrorCode(status), { status, message, data: { error } });
}
