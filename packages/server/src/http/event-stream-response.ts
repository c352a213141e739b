import { type IncomingMessage, type OutgoingHttpHeader, type OutgoingHttpHeaders, ServerResponse } from "node:http";

type HeadersArgument = OutgoingHttpHeaders | OutgoingHttpHeader[];

function namesEventStream(headers: HeadersArgument | undefined): boolean {
  if (headers === undefined) return false;
  const pairs: [string, unknown][] = Array.isArray(headers)
    ? headers.flatMap((value, index, all) => (index % 2 === 0 ? [[String(value), all[index + 1]]] : []))
    : Object.entries(headers);
  return pairs.some(
    ([name, value]) => name.toLowerCase() === "content-type" && String(value).startsWith("text/event-stream"),
  );
}

/**
 * Node's response, knowing whether it streams server-sent events. Such a stream never ends on its
 * own, so a server that drains its requests before stopping must end it rather than wait for it;
 * its client reconnects with `Last-Event-ID` and misses nothing. Hono's Node adapter hands the
 * headers to `writeHead`, where `getHeader` cannot see them, so they are read there.
 */
export class EventStreamAwareResponse<
  Request extends IncomingMessage = IncomingMessage,
> extends ServerResponse<Request> {
  streamsEvents = false;

  override writeHead(statusCode: number, statusMessage?: string, headers?: HeadersArgument): this;
  override writeHead(statusCode: number, headers?: HeadersArgument): this;
  override writeHead(statusCode: number, messageOrHeaders?: string | HeadersArgument, headers?: HeadersArgument): this {
    const set = this.getHeader("content-type");
    this.streamsEvents = set !== undefined && String(set).startsWith("text/event-stream");
    if (typeof messageOrHeaders === "string" || messageOrHeaders === undefined) {
      this.streamsEvents = namesEventStream(headers) || this.streamsEvents;
      return super.writeHead(statusCode, messageOrHeaders, headers);
    }
    this.streamsEvents = namesEventStream(messageOrHeaders) || this.streamsEvents;
    return super.writeHead(statusCode, messageOrHeaders);
  }
}
