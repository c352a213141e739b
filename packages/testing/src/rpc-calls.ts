import { registerIntegrationSecrets, registerManifestSecrets } from "./log-capture.ts";

/** The decoded answer of one raw RPC call. */
export interface RpcCallResult {
  status: number;
  headers: Headers;
  /** The `json` member of oRPC's RPC response body. */
  json: unknown;
  /** The body as sent, for comparisons byte for byte. */
  text: string;
}

/**
 * `POST {url}/rpc/<namespace>/<verb>` with body `{"json": input}`, exactly as oRPC's RPC protocol puts it on
 * the wire, so tests exercise the protocol rather than our client library.
 */
export async function callRpc(
  url: string,
  procedure: string,
  input: unknown,
  options: { token?: string | undefined; headers?: Record<string, string> } = {},
): Promise<RpcCallResult> {
  registerManifestSecrets((input as { manifest?: unknown } | undefined)?.manifest);
  registerIntegrationSecrets((input as { secrets?: unknown } | undefined)?.secrets);
  const response = await fetch(`${url}/rpc/${procedure.replaceAll(".", "/")}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
      ...options.headers,
    },
    body: JSON.stringify(input === undefined ? {} : { json: input }),
  });
  const text = await response.text();
  const body = text === "" ? undefined : (JSON.parse(text) as { json?: unknown });
  return { status: response.status, headers: response.headers, json: body?.json, text };
}

/** `callRpc` on `weft` as `caller`, with its credential. */
export function callRpcAs(
  weft: { url: string },
  caller: { credential: string },
  procedure: string,
  input: unknown,
): Promise<RpcCallResult> {
  return callRpc(weft.url, procedure, input, { token: caller.credential });
}
