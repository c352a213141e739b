import { ORPCError } from "@orpc/server";
import type { Context } from "hono";
import type { ApiSurface } from "../db/schema/index.ts";
import type { AppEnv } from "../http/app-env.ts";
import { jsonError } from "../http/errors.ts";
import { requestLogger } from "../http/request-context.ts";
import type { PlatformContext } from "../platform-context.ts";
import type { AuthenticatedContext, BearerAuthentication } from "./context.ts";

/** The procedures' context for an event stream's request, as the caller authenticated, for its access checks. */
export function streamContext(
  c: Context<AppEnv>,
  platform: PlatformContext,
  via: ApiSurface,
  authentication: Extract<BearerAuthentication, { status: "authenticated" }>,
): AuthenticatedContext {
  return {
    platform,
    requestId: c.get("requestId"),
    requestLogger: () => requestLogger(c),
    authentication,
    via,
    refusedScope: {},
    retryAfter: {},
    principal: authentication.principal,
  };
}

/**
 * Runs a stream's access check before the stream opens: its refusal (NOT_FOUND, FORBIDDEN) as the
 * JSON `{error, message}` answer, or undefined when it passes. Any other failure is thrown.
 */
export async function accessRefusal(c: Context<AppEnv>, check: () => Promise<unknown>): Promise<Response | undefined> {
  try {
    await check();
    return undefined;
  } catch (error) {
    if (error instanceof ORPCError && error.code === "NOT_FOUND") return jsonError(c, 404, "not_found", error.message);
    if (error instanceof ORPCError && error.code === "FORBIDDEN") return jsonError(c, 403, "forbidden", error.message);
    throw error;
  }
}

/**
 * Whether an access check passes: its refusal (or any failure to decide) is `false`. The stream it
 * guards then ends, and the client's reconnection is answered by the full checks.
 */
export async function passes(check: () => Promise<unknown>): Promise<boolean> {
  try {
    await check();
    return true;
  } catch {
    return false;
  }
}
