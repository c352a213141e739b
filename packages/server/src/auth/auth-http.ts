import type { Context, Handler } from "hono";
import type { AppEnv } from "../http/app-env.ts";
import { requestLogger } from "../http/request-context.ts";
import { parseStorableJson } from "../shared/storable-json.ts";
import { AuthError, type AuthRefusal, authErrorStatus } from "./auth-error.ts";

/** The one body of every refusal of the authorization server: `{error, error_description}`. */
export function authErrorResponse(c: Context<AppEnv>, refusal: AuthRefusal): Response {
  return c.json({ error: refusal.code, error_description: refusal.description }, authErrorStatus(refusal.code));
}

/** `server_error` for a failure whose details stay in the log, with the id to quote. */
export function serverError(c: Context<AppEnv>): AuthRefusal {
  return {
    code: "server_error",
    description: `Something went wrong; retry later, quoting request id ${c.get("requestId")}.`,
  };
}

/**
 * Wraps a registration, claim or revoke handler so every failure has the endpoints' one error shape:
 * AuthError as itself, anything unexpected as `server_error` without its message.
 */
export function authHandler(handler: (c: Context<AppEnv>) => Promise<Response>): Handler<AppEnv> {
  return async (c) => {
    try {
      return await handler(c);
    } catch (error) {
      if (error instanceof AuthError) return authErrorResponse(c, { code: error.code, description: error.message });
      requestLogger(c).error({ err: error }, "authorization server request failed");
      return authErrorResponse(c, serverError(c));
    }
  };
}

/** The JSON object body of a request, or `invalid_request`. */
export async function readJsonObject(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/json\s*(;|$)/i.test(type)) {
    throw new AuthError("invalid_request", "Send a JSON body with Content-Type: application/json.");
  }
  const parsed = parseStorableJson(await c.req.text());
  if (!parsed.ok) throw new AuthError("invalid_request", parsed.message);
  const body = parsed.value;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new AuthError("invalid_request", "The body must be a JSON object.");
  }
  return body as Record<string, unknown>;
}

export function requireString(body: Record<string, unknown>, field: string): string {
  const value = body[field];
  if (typeof value !== "string" || value === "") {
    throw new AuthError("invalid_request", `${field} is required and must be a non-empty string.`);
  }
  return value;
}

/** Bodies that carry a credential or a claim token must never be stored by a cache. */
export function noStore(c: Context<AppEnv>): void {
  c.header("Cache-Control", "no-store");
  c.header("Pragma", "no-cache");
}
