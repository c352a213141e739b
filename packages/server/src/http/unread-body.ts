import { IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Timers } from "../shared/timers.ts";

/**
 * How much of a body left unread by an early answer (413 over a limit, 415, 401, …) is read and
 * thrown away so that the connection survives, and how long that may take. The bytes cover the
 * largest body a route accepts (`deployments.create`, 12 MiB), so an upload refused on its
 * credential still gets its answer on a connection that stays open; the time stops a client that
 * trickles an endless body from holding a connection. Past either, the answer says
 * `Connection: close` and the connection ends. Figures: docs/decisions/0107-early-answers-read-the-rest.md.
 */
export const unreadBodyDiscardBytes = 16 * 1024 * 1024;
export const unreadBodyDiscardMs = 5_000;

/**
 * How long a connection closed after an early answer stays half-open, reading and discarding what
 * the client still sends (up to `unreadBodyDiscardBytes` more). Closing it at once resets a client
 * still writing its body, whose socket then fails (EPIPE, ECONNRESET) before it reads the answer:
 * `fetch` reports "fetch failed" instead of the 413.
 */
export const closeLingerMs = 1_000;

type Discarding = { onBytes(bytes: number): void; onEnd(): void };

/**
 * Node's request, able to stop handing its body on and discard what follows. The parser pushes
 * every body chunk, and null at the end, into the request; once discarding, those pushes are only
 * counted, so no reader (nor a reader's hook on the stream's events) sees them and the socket is
 * never paused for want of one. It also works after a reader gave up and destroyed the request, as
 * a `for await` over the body does when it stops early.
 */
export class DiscardableRequest extends IncomingMessage {
  #discarding: Discarding | undefined;

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    const discarding = this.#discarding;
    if (discarding === undefined) return super.push(chunk, encoding);
    if (chunk === null) discarding.onEnd();
    else discarding.onBytes(Buffer.isBuffer(chunk) ? chunk.length : String(chunk).length);
    return true;
  }

  /**
   * From now on, counts and drops the rest of the body instead of buffering it. `socket` is the
   * request's: a reader that destroyed the request also detached it.
   */
  discard(socket: Socket, discarding: Discarding): void {
    this.#discarding = discarding;
    // A reader that stopped left the socket paused; the rest must flow to be dropped.
    socket.resume();
  }
}

type DiscardOutcome = "ended" | "over_bound" | "closed";

/** Reads and drops the rest of the body, up to the bounds; says how it ended. */
function discardRest(request: DiscardableRequest, socket: Socket, timers: Timers): Promise<DiscardOutcome> {
  const declared = Number(request.headers["content-length"]);
  if (declared > unreadBodyDiscardBytes) return Promise.resolve("over_bound");
  return new Promise((resolve) => {
    let discarded = 0;
    const settle = (outcome: DiscardOutcome) => {
      cancelTimer();
      socket.off("close", onClose);
      resolve(outcome);
    };
    const onClose = () => settle("closed");
    const cancelTimer = timers.after(unreadBodyDiscardMs, () => settle("over_bound"));
    socket.once("close", onClose);
    request.discard(socket, {
      onBytes: (bytes) => {
        discarded += bytes;
        if (discarded > unreadBodyDiscardBytes) settle("over_bound");
      },
      onEnd: () => settle("ended"),
    });
  });
}

/**
 * Ends a connection whose answer said `Connection: close` without resetting a client that is still
 * sending: the answer is out and the write side closed (FIN), while what arrives is still read and
 * dropped until the client closes, `closeLingerMs` pass or `unreadBodyDiscardBytes` more arrive.
 */
function lingeringClose(request: DiscardableRequest, socket: Socket, timers: Timers): void {
  let discarded = 0;
  const cancelTimer = timers.after(closeLingerMs, () => socket.destroy());
  socket.once("close", cancelTimer);
  request.discard(socket, {
    onBytes: (bytes) => {
      discarded += bytes;
      if (discarded > unreadBodyDiscardBytes) socket.destroy();
    },
    onEnd: () => undefined,
  });
  socket.end();
}

const heldMethods = ["writeHead", "write", "end", "flushHeaders"] as const;

const heldAnswers = new WeakSet<ServerResponse>();

/** Whether an answer was written and is held until the request's body has been read. */
export function isAnswerHeld(response: ServerResponse): boolean {
  return heldAnswers.has(response);
}

/** Whether the request announces a body (a length above 0, or chunks). */
function hasBody(request: IncomingMessage): boolean {
  const length = request.headers["content-length"];
  return request.headers["transfer-encoding"] !== undefined || (length !== undefined && Number(length) !== 0);
}

/**
 * An answer that starts before its request's body has all arrived is held (nothing reaches the
 * wire) while the rest of the body is read and dropped, so that the client, still sending, meets
 * neither a closed connection nor a reset and reads the answer, and the connection serves the next
 * request. Past the bounds the answer goes out with `Connection: close`, and the connection closes
 * lingering. Every early answer passes here: the platform's and the ingress's 413s and 415s, a 401
 * before the body, and the RPC API's answers, written on Node's response by oRPC.
 */
function holdEarlyAnswer(request: DiscardableRequest, response: ServerResponse, timers: Timers): void {
  const socket = request.socket;
  const originals = heldMethods.map((name) => [name, response[name]] as const);
  const queued: (() => void)[] = [];
  let held: Promise<void> | undefined;
  const restore = () => {
    for (const [name, original] of originals) Reflect.set(response, name, original);
  };
  const release = (outcome: DiscardOutcome) => {
    restore();
    heldAnswers.delete(response);
    if (outcome === "ended") {
      // A body limit's `Connection: close` (oRPC's) is there for the unread rest; that is gone.
      if (String(response.getHeader("connection")).toLowerCase() === "close") response.removeHeader("connection");
    } else if (!response.headersSent) {
      response.setHeader("Connection", "close");
      // Node ends a closing connection with destroySoon(): FIN, then destroyed once flushed.
      Reflect.set(socket, "destroySoon", () => lingeringClose(request, socket, timers));
    }
    for (const call of queued) call();
  };
  for (const [name, original] of originals) {
    Reflect.set(response, name, (...args: unknown[]) => {
      if (held === undefined) {
        if (request.complete || socket.destroyed) {
          restore();
          return Reflect.apply(original, response, args);
        }
        held = discardRest(request, socket, timers).then(release);
        heldAnswers.add(response);
      }
      // The access log reads the status of an answer written on Node's response.
      if (name === "writeHead" && typeof args[0] === "number") response.statusCode = args[0];
      queued.push(() => Reflect.apply(original, response, args));
      return name === "write" ? true : response;
    });
  }
  response.once("close", restore);
}

/**
 * What node:http calls for each request, with answers that start before the body has all arrived
 * held until it has (`holdEarlyAnswer`). The server must make its requests `DiscardableRequest`s.
 */
export function answeringAfterTheBody(listener: RequestListener, timers: Timers): RequestListener {
  return (request, response) => {
    if (request instanceof DiscardableRequest && hasBody(request) && !request.complete) {
      holdEarlyAnswer(request, response, timers);
    }
    listener(request, response);
  };
}
