import type { IncomingMessage } from "node:http";
import type { Context } from "hono";
import type { AppEnv } from "./app-env.ts";

export type BodyText = { ok: true; text: string } | { ok: false; reason: "too_large" };

function readIncoming(incoming: IncomingMessage, limitBytes: number): Promise<BodyText> {
  if (Number(incoming.headers["content-length"]) > limitBytes)
    return Promise.resolve({ ok: false, reason: "too_large" });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanUp = () => {
      incoming.off("data", onData);
      incoming.off("end", onEnd);
      incoming.off("error", onError);
      incoming.off("close", onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        cleanUp();
        resolve({ ok: false, reason: "too_large" });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanUp();
      // TextDecoder, like Request.text(): invalid sequences become U+FFFD and a leading BOM is dropped.
      resolve({ ok: true, text: new TextDecoder().decode(Buffer.concat(chunks, size)) });
    };
    const onError = (error: Error) => {
      cleanUp();
      reject(error);
    };
    const onClose = () => {
      cleanUp();
      reject(new Error("the client closed the connection before sending the whole body"));
    };
    incoming.on("data", onData);
    incoming.once("end", onEnd);
    incoming.once("error", onError);
    incoming.once("close", onClose);
  });
}

/**
 * The request body as text, refusing one over `limitBytes` (declared or actual). Served by
 * node:http, the body is read from Node's own stream: turning the request into a Web Request to
 * read its stream cost more than the rest of a small webhook call.
 */
export async function readBodyText(c: Context<AppEnv>, limitBytes: number): Promise<BodyText> {
  const incoming = c.env?.incoming;
  if (incoming !== undefined) return readIncoming(incoming, limitBytes);
  const body = await c.req.arrayBuffer();
  return body.byteLength > limitBytes
    ? { ok: false, reason: "too_large" }
    : { ok: true, text: new TextDecoder().decode(body) };
}

/** The request's headers as lower-case name/value pairs (repeated headers joined by ", "). */
export function requestHeaderEntries(c: Context<AppEnv>): Iterable<[string, string]> {
  const incoming = c.env?.incoming;
  if (incoming === undefined) return c.req.raw.headers.entries();
  return Object.entries(incoming.headers).flatMap(([name, value]): [string, string][] =>
    value === undefined ? [] : [[name, Array.isArray(value) ? value.join(", ") : value]],
  );
}
