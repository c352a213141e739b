import { createParser, type EventSourceMessage } from "eventsource-parser";

export interface OpenEventStream {
  status: number;
  headers: Headers;
  /** The body when the server refused to stream (status other than 200). */
  refusal: unknown;
  /** The next event, in order; waits for it. */
  next(): Promise<EventSourceMessage>;
  close(): void;
}

/**
 * Opens `GET {base_url}/api/events?projectId=…` as a client would, optionally resuming after
 * `lastEventId`; with `studioCookie`, Studio's `GET /studio/events?projectId=…` as its page would.
 */
export async function openEventStream(
  baseUrl: string,
  options: {
    projectId: string;
    token?: string | undefined;
    lastEventId?: string | undefined;
    studioCookie?: string | undefined;
  },
): Promise<OpenEventStream> {
  const stopped = new AbortController();
  const headers: Record<string, string> = { accept: "text/event-stream" };
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.lastEventId !== undefined) headers["last-event-id"] = options.lastEventId;
  if (options.studioCookie !== undefined) {
    headers.cookie = options.studioCookie;
    headers["sec-fetch-site"] = "same-origin";
  }
  const path = options.studioCookie === undefined ? "api/events" : "studio/events";
  const response = await fetch(`${baseUrl}/${path}?projectId=${encodeURIComponent(options.projectId)}`, {
    headers,
    signal: stopped.signal,
  });
  const queue: EventSourceMessage[] = [];
  const waiters: ((message: EventSourceMessage) => void)[] = [];
  const parser = createParser({
    onEvent: (message) => {
      const waiter = waiters.shift();
      if (waiter === undefined) queue.push(message);
      else waiter(message);
    },
  });
  let refusal: unknown;
  if (response.status !== 200) refusal = await response.json();
  else if (response.body !== null) {
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
          parser.feed(decoder.decode(chunk, { stream: true }));
        }
      } catch {
        // Closed by `close()`.
      }
    })();
  }
  return {
    status: response.status,
    headers: response.headers,
    refusal,
    next: () => {
      const queued = queue.shift();
      return queued === undefined ? new Promise((resolve) => waiters.push(resolve)) : Promise.resolve(queued);
    },
    close: () => stopped.abort(),
  };
}
