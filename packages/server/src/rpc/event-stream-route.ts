import { setTimeout as delay } from "node:timers/promises";
import type { Context } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";
import {
  comparePositions,
  decodePosition,
  type EventPosition,
  positionAt,
} from "../execution-events/event-position.ts";
import { type ListEventsRequest, listEvents } from "../execution-events/index.ts";
import type { AppEnv } from "../http/app-env.ts";
import { jsonError } from "../http/errors.ts";
import type { PlatformContext } from "../platform-context.ts";
import { authenticateBearer, bearerChallenge } from "./bearer-authentication.ts";
import type { PrincipalResolver } from "./principal-cache.ts";
import { requireProjectAccess } from "./project-access.ts";
import { accessRefusal, passes, streamContext } from "./stream-access.ts";
import { toEvent } from "./workflows/list-events.ts";

/** How often a connection looks for new events (the floor: never more than once a second). */
export const eventPollIntervalMs = 1000;
/** A comment line this often keeps proxies from closing a quiet stream. */
const keepAliveMs = 15_000;
const pageSize = 200;
/**
 * How often an open stream checks again that its reader may still read it, on the platform's
 * clock: a credential revoked, a session signed out or an access removed ends the stream within
 * this long, with an `access-ended` event, and the reconnection is refused.
 */
export const accessRecheckMs = 30_000;

/**
 * `GET {base_url}/api/events?projectId=…`: the project's execution events as server-sent events, each
 * with its cursor as `id`, so that a client that reconnects with `Last-Event-ID` misses none. Without
 * `Last-Event-ID` the stream starts at the moment of the request. Authenticated by the bearer header
 * like the API, needing `projects:read`; the refusals are JSON `{error, message}` before any stream.
 */
export function eventStreamRoute(context: PlatformContext, resolver: PrincipalResolver, metadataUrl: string) {
  return async (c: Context<AppEnv>): Promise<Response> => {
    const authentication = await authenticateBearer(c.req.header("authorization"), resolver);
    if (authentication.status === "failed") throw authentication.error;
    if (authentication.status !== "authenticated") {
      const challenge = bearerChallenge(authentication, metadataUrl);
      if (challenge !== undefined) c.header("WWW-Authenticate", challenge);
      return jsonError(c, 401, "unauthorized", "Send Authorization: Bearer <credential>.");
    }
    const { principal } = authentication;
    if (!principal.scopes.has("projects:read")) {
      return jsonError(c, 403, "forbidden", "This credential lacks the projects:read scope.");
    }
    const lastEventId = c.req.header("last-event-id");
    const start: EventPosition | undefined =
      lastEventId === undefined || lastEventId === "" ? positionAt(context.clock.now()) : decodePosition(lastEventId);
    if (start === undefined) {
      return jsonError(c, 400, "invalid_request", "Last-Event-ID is not an event id of this stream.");
    }
    const projectId = c.req.query("projectId") ?? "";
    const refused = await accessRefusal(c, () =>
      requireProjectAccess(streamContext(c, context, "api", authentication), projectId, { access: "read" }),
    );
    if (refused !== undefined) return refused;
    const stillAllowed = async () => {
      const again = await authenticateBearer(c.req.header("authorization"), resolver);
      if (again.status !== "authenticated" || !again.principal.scopes.has("projects:read")) return false;
      return passes(() => requireProjectAccess(streamContext(c, context, "api", again), projectId, { access: "read" }));
    };
    return streamSSE(c, (stream) =>
      followEvents(context, stream, { scope: { projectId }, after: start, stillAllowed }),
    );
  };
}

/**
 * Each look reads again the last `recheckMs` of the stream: an event stamped a moment ago may commit
 * after a later-stamped one of another execution (or another worker's clock), and would otherwise
 * be passed over. Events already sent on this connection are skipped by id.
 */
export const recheckMs = 5000;

/**
 * Writes the scope's events to the stream from `after` on, until the client goes away or, at one of
 * its checks every `accessRecheckMs`, `stillAllowed` answers false.
 */
export async function followEvents(
  context: PlatformContext,
  stream: SSEStreamingApi,
  request: { scope: ListEventsRequest["scope"]; after: EventPosition; stillAllowed: () => Promise<boolean> },
): Promise<void> {
  const stopped = new AbortController();
  stream.onAbort(() => stopped.abort());
  let latest = request.after;
  const sent = new Map<string, number>();
  let quietSince = Date.now();
  let accessCheckedAt = context.clock.now().getTime();
  while (!stopped.signal.aborted) {
    if (context.clock.now().getTime() - accessCheckedAt >= accessRecheckMs) {
      if (!(await request.stillAllowed())) {
        const message = "This stream's access has ended: sign in again, or use a credential that may read it.";
        await stream.writeSSE({ event: "access-ended", data: JSON.stringify({ error: "forbidden", message }) });
        return;
      }
      accessCheckedAt = context.clock.now().getTime();
    }
    const horizon = latest.recordedAt.getTime() - recheckMs;
    let cursor = minPosition(latest, positionAt(new Date(horizon)));
    let wrote = false;
    for (;;) {
      const page = await listEvents(context.database.db, {
        scope: request.scope,
        after: cursor,
        limit: pageSize,
      });
      if (!page.ok) return;
      for (const event of page.value.events) {
        cursor = event.position;
        if (sent.has(event.id) || comparePositions(event.position, request.after) <= 0) continue;
        await stream.writeSSE({ id: event.id, event: "execution-event", data: JSON.stringify(toEvent(event)) });
        sent.set(event.id, event.position.recordedAt.getTime());
        if (comparePositions(event.position, latest) > 0) latest = event.position;
        wrote = true;
      }
      if (!page.value.hasMore) break;
    }
    for (const [id, recordedAt] of sent) if (recordedAt < horizon) sent.delete(id);
    if (wrote) quietSince = Date.now();
    else if (Date.now() - quietSince >= keepAliveMs) {
      await stream.write(": keep-alive\n\n");
      quietSince = Date.now();
    }
    await delay(eventPollIntervalMs, undefined, { signal: stopped.signal }).catch(() => undefined);
  }
}

function minPosition(a: EventPosition, b: EventPosition): EventPosition {
  return comparePositions(a, b) <= 0 ? a : b;
}
