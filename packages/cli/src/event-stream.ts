import { setTimeout as delay } from "node:timers/promises";
import type { ExecutionEvent } from "@weft/contract";
import { createParser } from "eventsource-parser";
import type { CommandContext } from "./context.ts";
import { CliError } from "./errors.ts";

/** How long to wait before reconnecting a stream the network or the server closed. */
const reconnectDelayMs = 1000;

export interface FollowRequest {
  projectId: string;
  /** Resume after this event id (a cursor of `workflows.listEvents`); without it, from now. */
  after?: string | undefined;
  signal: AbortSignal;
  /** Called for each event in order; answering `stop` ends the follow. */
  onEvent(event: ExecutionEvent): "stop" | undefined;
}

/** Turns a refusal of the stream into the CLI's failure, with the fix that fits. */
async function refusal(response: Response, context: CommandContext): Promise<CliError> {
  const body = (await response.json().catch(() => ({}))) as { message?: string };
  if (response.status === 401) {
    const fromEnv = (context.env.WEFT_TOKEN?.trim() ?? "") !== "";
    return new CliError("the platform refused the credential (missing, expired or revoked)", {
      code: "unauthorized",
      fix: fromEnv
        ? "WEFT_TOKEN holds a credential the platform refuses: set it to a valid one, or unset it and run `weft login`"
        : "run `weft login`",
    });
  }
  return new CliError(body.message ?? `the event stream answered ${response.status}`, {
    code: response.status === 404 ? "not_found" : "failed",
    fix: response.status === 404 ? "check the project id (`weft projects list`)" : "try again",
  });
}

/**
 * Follows `GET {base_url}/api/events` (server-sent events) until `onEvent` says stop or `signal`
 * aborts. A dropped connection is reopened with `Last-Event-ID`, so no event is missed or repeated;
 * a refusal (401, 404) ends it with the CLI's error.
 */
export async function followEvents(context: CommandContext, request: FollowRequest): Promise<void> {
  let lastEventId = request.after;
  let stopped = false;
  const token = context.requireToken().token;
  while (!stopped && !request.signal.aborted) {
    const headers: Record<string, string> = { accept: "text/event-stream", authorization: `Bearer ${token}` };
    if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
    let response: Response;
    try {
      response = await fetch(`${context.apiUrl}/api/events?projectId=${encodeURIComponent(request.projectId)}`, {
        headers,
        signal: request.signal,
      });
    } catch (error) {
      if (request.signal.aborted) return;
      await delay(reconnectDelayMs, undefined, { signal: request.signal }).catch(() => undefined);
      if (context.output.json) continue;
      context.output.warn(`the event stream is unreachable (${(error as Error).message}); retrying`);
      continue;
    }
    if (response.status !== 200 || response.body === null) throw await refusal(response, context);
    const parser = createParser({
      onEvent: (message) => {
        if (stopped || message.event !== "execution-event") return;
        if (message.id !== undefined) lastEventId = message.id;
        if (request.onEvent(JSON.parse(message.data) as ExecutionEvent) === "stop") stopped = true;
      },
    });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(chunk, { stream: true }));
        if (stopped) break;
      }
    } catch {
      // The connection dropped (or Ctrl-C aborted it): reconnect unless stopping.
    }
    if (!stopped && !request.signal.aborted) {
      await delay(reconnectDelayMs, undefined, { signal: request.signal }).catch(() => undefined);
    }
  }
}

/** An AbortSignal that Ctrl-C (SIGINT) aborts: following ends quietly, with exit code 0. */
export function interruptSignal(): AbortSignal {
  const controller = new AbortController();
  process.once("SIGINT", () => controller.abort());
  return controller.signal;
}
