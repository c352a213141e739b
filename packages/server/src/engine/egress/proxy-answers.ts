import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Readable, Writable } from "node:stream";
import { egressRefusalHeader } from "./egress-refusal.ts";

const statusText: Record<number, string> = {
  400: "Bad Request",
  403: "Forbidden",
  408: "Request Timeout",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** Hop-by-hop and proxy-only headers, which a proxy never forwards; the refusal header is the proxy's alone. */
export const hopByHop = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "te",
  "trailer",
  "upgrade",
  egressRefusalHeader,
];

/** The whole answer of the proxy's own, written straight to a socket that HTTP has not taken (or gave up). */
export function rawAnswer(status: number, reason: string): string {
  const body = `weft egress proxy: ${reason}\n`;
  return (
    `HTTP/1.1 ${status} ${statusText[status] ?? "Error"}\r\n` +
    `content-type: text/plain; charset=utf-8\r\nconnection: close\r\n` +
    `${egressRefusalHeader}: ${encodeURIComponent(reason)}\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

/** Answers and lets go of the descriptor once the answer is written, whatever the peer does. */
export function refuseSocket(socket: Socket, status: number, reason: string): void {
  socket.on("error", () => socket.destroy());
  socket.end(rawAnswer(status, reason), () => socket.destroy());
}

/** The proxy's own answer to a request HTTP has taken. */
export function answer(response: ServerResponse, status: number, reason: string): void {
  response.writeHead(status, {
    "content-type": "text/plain; charset=utf-8",
    connection: "close",
    [egressRefusalHeader]: encodeURIComponent(reason),
  });
  response.end(`weft egress proxy: ${reason}\n`);
}

/**
 * Moves bytes from one stream to another, keeping to the slower side's pace. `counted` sees each
 * chunk before it is written and returns false to drop it (the exchange is being cut).
 */
export function relay(from: Readable, to: Writable, counted: (bytes: number) => boolean): void {
  from.on("data", (chunk: Buffer) => {
    if (!counted(chunk.length)) return;
    if (!to.write(chunk)) {
      from.pause();
      to.once("drain", () => from.resume());
    }
  });
  from.once("end", () => to.end());
}
