import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import { decodePosition, type EventPosition, positionAt } from "../execution-events/event-position.ts";
import type { ListEventsRequest } from "../execution-events/index.ts";
import type { AppEnv } from "../http/app-env.ts";
import { jsonError } from "../http/errors.ts";
import type { PlatformContext } from "../platform-context.ts";
import type { AuthenticatedContext } from "./context.ts";
import { followEvents, recheckMs } from "./event-stream-route.ts";
import { requireProjectAccess, requireWholeWorkspaceReach, requireWorkspaceAccess } from "./project-access.ts";
import { accessRefusal, passes, streamContext } from "./stream-access.ts";
import type { StudioAuthentication } from "./studio-session-authentication.ts";
import { requireExecutionAccess } from "./workflows/execution-access.ts";

const idPattern = /^[a-z]{3}_[0-9a-z]{26}$/;

/**
 * Whether the request comes from a Studio page of this origin. The session cookie is SameSite=Lax
 * and the stream sends no CORS headers, so another site could neither send the cookie with a
 * subresource request nor read the answer; this refuses such a request outright all the same, by
 * the Fetch Metadata a browser sends (`Sec-Fetch-Site`) and the `Origin` it sends on a CORS request.
 */
function fromThisOrigin(c: Context<AppEnv>, baseUrl: string): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined && site !== "same-origin") return false;
  const origin = c.req.header("origin");
  // The base URL's origin, or the one the request reached (the same server under another name, as localhost).
  return origin === undefined || origin === new URL(baseUrl).origin || origin === new URL(c.req.url).origin;
}

/** The one scope the query names: `executionId`, `projectId` or `workspaceId`. */
function scopeOf(c: Context<AppEnv>): ListEventsRequest["scope"] | undefined {
  const given = (["executionId", "projectId", "workspaceId"] as const).flatMap((name) => {
    const value = c.req.query(name);
    return value === undefined ? [] : [{ name, value }];
  });
  const [only] = given;
  if (given.length !== 1 || only === undefined || !idPattern.test(only.value)) return undefined;
  if (only.name === "executionId") return { executionId: only.value };
  if (only.name === "projectId") return { projectId: only.value };
  return { workspaceId: only.value };
}

async function requireScopeAccess(context: AuthenticatedContext, scope: ListEventsRequest["scope"]): Promise<void> {
  if ("executionId" in scope) {
    await requireExecutionAccess(context, scope.executionId, { access: "read" });
  } else if ("projectId" in scope) {
    await requireProjectAccess(context, scope.projectId, { access: "read" });
  } else {
    requireWorkspaceAccess(context.principal, scope.workspaceId, "read");
    requireWholeWorkspaceReach(context.principal);
  }
}

/**
 * `GET /studio/events?executionId=…|projectId=…|workspaceId=…`: the execution events of what a
 * Studio page shows, as server-sent events (the API's stream, `event-stream-route.ts`), so that the
 * page refreshes when something changes instead of polling. Authorized by the Studio session cookie
 * alone (an EventSource sends no header); it is a GET that changes nothing, answered only to a
 * request from this origin. Refusals are JSON `{error, message}` before any stream.
 */
export function studioEventStreamRoute(
  context: PlatformContext,
  authenticate: (c: Context<AppEnv>) => Promise<StudioAuthentication>,
) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    if (!fromThisOrigin(c, context.config.baseUrl)) {
      return jsonError(c, 403, "forbidden", "Studio's event stream answers Studio's own pages only.");
    }
    const authentication = await authenticate(c);
    if (authentication.status === "failed") throw authentication.error;
    if (authentication.status !== "authenticated") {
      return jsonError(c, 401, "unauthorized", "Sign in to Studio first.");
    }
    const scope = scopeOf(c);
    if (scope === undefined) {
      return jsonError(c, 400, "invalid_request", "Name one of executionId, projectId or workspaceId, by its id.");
    }
    // A page reads its data, then opens the stream: a fresh stream starts a little before now, so that
    // a change between the two reaches the page (which then reads again) instead of falling between them.
    const lastEventId = c.req.header("last-event-id");
    const start: EventPosition | undefined =
      lastEventId === undefined || lastEventId === ""
        ? positionAt(new Date(context.clock.now().getTime() - recheckMs))
        : decodePosition(lastEventId);
    if (start === undefined) {
      return jsonError(c, 400, "invalid_request", "Last-Event-ID is not an event id of this stream.");
    }
    const refused = await accessRefusal(c, () =>
      requireScopeAccess(streamContext(c, context, "rpc", authentication), scope),
    );
    if (refused !== undefined) return refused;
    const stillAllowed = async () => {
      const again = await authenticate(c);
      if (again.status !== "authenticated") return false;
      return passes(() => requireScopeAccess(streamContext(c, context, "rpc", again), scope));
    };
    return streamSSE(c, (stream) => followEvents(context, stream, { scope, after: start, stillAllowed }));
  };
}
