/**
 * Preloaded (`--import`) into a sandbox child whose network namespace is empty. Node's own proxy
 * support (NODE_USE_ENV_PROXY with HTTP_PROXY/HTTPS_PROXY) takes a TCP URL only, while the
 * platform's egress proxy is reachable only through a Unix socket bound into the sandbox: this
 * relays the one to the other, before any user code loads. It imports only `node:` built-ins, as
 * child-runtime.ts does.
 *
 * It also explains refusals. Node reports a refused CONNECT as "Proxy response (403) !== 200",
 * whatever the proxy said, and hands a refused http request back as a 403 response. So the relay
 * reads the first answer of each connection: the proxy's own answers carry their reason in a
 * header (egress-refusal.ts), which is remembered per destination. `fetch`, `http.request`,
 * `http.get`, `https.request` and `https.get` are wrapped so that a call to a destination with a
 * remembered reason fails with an Error whose message is that reason, the original as its cause.
 * A connection cut without an answer (the child's byte budget ran out) is explained by asking the
 * proxy for the child's budget.
 *
 * And it holds what goes out until the steps reported before it are stored: child-runtime.ts, which
 * loads after this file and before any user code, hands it the wait through `holdEgress` (once), and
 * then lets a workflow go on from a small step before the worker has stored it.
 */
import http, { type ClientRequest, type IncomingMessage } from "node:http";
import https from "node:https";
import { syncBuiltinESMExports } from "node:module";
import { connect, createServer, type Socket } from "node:net";
import { Transform } from "node:stream";

/** As egress-refusal.ts names them: this file imports nothing of the platform. */
const refusalHeader = "x-weft-egress-refusal";
const statusPath = "/weft-egress-status";
/** Bytes of a request line or an answer's head read for the explanation; past it the connection is only relayed. */
const maxHeadBytes = 16 * 1024;
/** Destinations whose last refusal is remembered; the oldest is forgotten first. */
const maxRemembered = 256;
/** How long the question about the budget may take before the failure is reported as it was. */
const statusTimeoutMs = 2000;

const socketPath = process.env.WEFT_EGRESS_SOCKET;
const proxyUrl = process.env.HTTP_PROXY;

/** `host:port`, lower case, brackets stripped: the same for a URL, an option bag and a CONNECT target. */
function destinationKey(host: string, port: number | string): string {
  return `${host.replace(/^\[(.*)\]$/, "$1").toLowerCase()}:${port}`;
}

const refusals = new Map<string, string>();

/** What the relay waits for before it sends a chunk on: the steps reported so far, stored. */
let unstoredSteps: () => Promise<unknown> | undefined = () => undefined;
let held = false;
function holdEgress(wait: () => Promise<unknown> | undefined): void {
  if (held) return;
  held = true;
  unstoredSteps = wait;
}

/** The client's bytes, each chunk held until the steps reported before it arrived are stored. */
function heldUntilStored(): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const waiting = unstoredSteps();
      if (waiting === undefined) done(null, chunk);
      else waiting.then(() => done(null, chunk));
    },
  });
}

function remember(destination: string, reason: string | undefined): void {
  refusals.delete(destination);
  if (reason === undefined) return;
  refusals.set(destination, reason);
  if (refusals.size > maxRemembered) refusals.delete(refusals.keys().next().value ?? destination);
}

/** The destination of a request line: `CONNECT host:port HTTP/1.1` or `GET http://host:port/… HTTP/1.1`. */
function destinationOfRequestLine(line: string): string | undefined {
  const [method, target] = line.split(" ");
  if (method === undefined || target === undefined) return undefined;
  if (method === "CONNECT") {
    const parsed = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+):(\d{1,5})$/.exec(target);
    return parsed?.[1] === undefined || parsed[2] === undefined ? undefined : destinationKey(parsed[1], parsed[2]);
  }
  try {
    const url = new URL(target);
    return destinationKey(url.hostname, url.port === "" ? (url.protocol === "https:" ? 443 : 80) : url.port);
  } catch {
    return undefined;
  }
}

/** The reason in the refusal header of a response head, or undefined when the head has none (the answer is not the proxy's refusal). */
function reasonInHead(head: string): string | undefined {
  for (const line of head.split("\r\n").slice(1)) {
    const colon = line.indexOf(":");
    if (colon < 0 || line.slice(0, colon).trim().toLowerCase() !== refusalHeader) continue;
    try {
      return decodeURIComponent(line.slice(colon + 1).trim());
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Reads the request line and the first answer's head of one relayed connection, and remembers what
 * the answer said. Returns what to do when the proxy cannot be reached: answer for it.
 */
function watchExchange(client: Socket, upstream: Socket): (error: NodeJS.ErrnoException) => void {
  let requestText = "";
  let answerText = "";
  let destination: string | undefined;
  let answer: { reason: string | undefined } | undefined;
  const settle = () => {
    if (destination !== undefined && answer !== undefined) remember(destination, answer.reason);
  };
  const onRequest = (chunk: Buffer) => {
    requestText += chunk.toString("latin1");
    const end = requestText.indexOf("\r\n");
    if (end < 0 && requestText.length < maxHeadBytes) return;
    client.off("data", onRequest);
    destination = end < 0 ? undefined : destinationOfRequestLine(requestText.slice(0, end));
    settle();
  };
  const onAnswer = (chunk: Buffer) => {
    answerText += chunk.toString("latin1");
    const end = answerText.indexOf("\r\n\r\n");
    if (end < 0 && answerText.length < maxHeadBytes) return;
    upstream.off("data", onAnswer);
    answer = { reason: end < 0 ? undefined : reasonInHead(answerText.slice(0, end)) };
    settle();
  };
  // Registered before the relay's own listeners: the reason is known before the client sees the answer.
  client.on("data", onRequest);
  upstream.on("data", onAnswer);
  return (error) => {
    if (answer !== undefined && answerText === "") return;
    // What the proxy answered before it closed (a refusal) still reaches the client.
    if (answerText !== "" || !client.writable) return client.destroySoon();
    // A full backlog (EAGAIN) under a flood of the child's own making, most likely.
    const reason = `egress failed: the platform's egress proxy did not take the connection (${error.code ?? error.message})`;
    upstream.off("data", onAnswer);
    answer = { reason };
    settle();
    const body = `weft egress proxy: ${reason}\n`;
    client.end(
      `HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\n${refusalHeader}: ${encodeURIComponent(reason)}\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      () => client.destroy(),
    );
  };
}

/** Asks the proxy whether this child's byte budget is used up: its reason if so. */
function askBudget(path: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = connect(path);
    let head = "";
    const done = (reason: string | undefined) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(reason);
    };
    const timer = setTimeout(() => done(undefined), statusTimeoutMs);
    timer.unref();
    socket.on("connect", () =>
      socket.write(`GET ${statusPath} HTTP/1.1\r\nhost: weft-egress\r\nconnection: close\r\n\r\n`),
    );
    socket.on("data", (chunk: Buffer) => {
      head += chunk.toString("latin1");
      const end = head.indexOf("\r\n\r\n");
      if (end >= 0) done(reasonInHead(head.slice(0, end)));
      else if (head.length > maxHeadBytes) done(undefined);
    });
    socket.on("error", () => done(undefined));
    socket.on("close", () => done(undefined));
  });
}

/** The error a workflow sees: the proxy's reason, with what Node reported as its cause. */
function explained(reason: string, cause: unknown): Error {
  const error = new Error(reason, { cause });
  error.name = "EgressError";
  return error;
}

/** Failures that are the caller's own doing, which no refusal explains. */
function isAbort(error: unknown): boolean {
  return error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError");
}

async function explainFailure(error: unknown, destination: string | undefined, path: string): Promise<unknown> {
  if (isAbort(error)) return error;
  const reason = (destination === undefined ? undefined : refusals.get(destination)) ?? (await askBudget(path));
  return reason === undefined ? error : explained(reason, error);
}

function destinationOfUrl(url: URL): string {
  return destinationKey(url.hostname, url.port === "" ? (url.protocol === "https:" ? 443 : 80) : url.port);
}

function destinationOfFetch(input: unknown): string | undefined {
  try {
    if (input instanceof Request) return destinationOfUrl(new URL(input.url));
    return destinationOfUrl(new URL(String(input)));
  } catch {
    return undefined;
  }
}

/** A body that fails with the explained error when the connection under it is cut. */
function explainedBody(body: ReadableStream<Uint8Array>, destination: string | undefined, path: string) {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(await explainFailure(error, destination, path));
      }
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

function wrapFetch(path: string): void {
  const originalFetch = globalThis.fetch;
  globalThis.fetch = async function fetch(input, init) {
    const destination = destinationOfFetch(input);
    let response: Response;
    try {
      response = await originalFetch(input, init);
    } catch (error) {
      throw await explainFailure(error, destination, path);
    }
    if (response.body === null) return response;
    let wrapped: Response;
    try {
      wrapped = new Response(explainedBody(response.body, destination, path), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    } catch {
      return response;
    }
    Object.defineProperties(wrapped, {
      url: { value: response.url },
      redirected: { value: response.redirected },
      type: { value: response.type },
    });
    return wrapped;
  };
}

/** `host:port` of the arguments of http.request/https.request/get: (url, options?, callback?) or (options, callback?). */
function destinationOfArguments(args: unknown[], defaultPort: number): string | undefined {
  try {
    const [first, second] = args;
    let host: string | undefined;
    let port: string | number | undefined;
    if (typeof first === "string" || first instanceof URL) {
      const url = new URL(first);
      host = url.hostname;
      port = url.port === "" ? undefined : url.port;
    }
    const options = (typeof first === "object" && !(first instanceof URL) ? first : second) as
      | { hostname?: unknown; host?: unknown; port?: unknown }
      | undefined;
    if (typeof options === "object" && options !== null) {
      const named = options.hostname ?? options.host;
      if (typeof named === "string") host = named;
      if (typeof options.port === "string" || typeof options.port === "number") port = options.port;
    }
    return destinationKey(host ?? "localhost", port ?? defaultPort);
  } catch {
    return undefined;
  }
}

/**
 * A refusal reaches `node:http` as the proxy's own response and `node:https` as a failed tunnel:
 * either way the request emits an `error` that names the reason instead.
 */
function explainRequest(request: ClientRequest, destination: string | undefined): void {
  const emit = request.emit;
  request.emit = function explainedEmit(this: ClientRequest, event: string | symbol, ...rest: unknown[]): boolean {
    if (event === "response") {
      const response = rest[0] as IncomingMessage;
      const header = response.headers[refusalHeader];
      if (typeof header === "string") {
        response.resume();
        let reason = header;
        try {
          reason = decodeURIComponent(header);
        } catch {}
        return emit.call(
          this,
          "error",
          explained(reason, new Error(`the egress proxy answered ${response.statusCode}`)),
        );
      }
    }
    if (event === "error" && destination !== undefined) {
      const reason = refusals.get(destination);
      if (reason !== undefined && !isAbort(rest[0])) return emit.call(this, "error", explained(reason, rest[0]));
    }
    return emit.call(this, event, ...rest);
  } as unknown as ClientRequest["emit"];
}

type RequestFunction = (...args: unknown[]) => ClientRequest;

function wrapRequests(module: typeof http | typeof https, defaultPort: number): void {
  for (const name of ["request", "get"] as const) {
    const original = module[name] as unknown as RequestFunction;
    const wrapped = function (this: unknown, ...args: unknown[]): ClientRequest {
      const request = original.apply(this, args);
      explainRequest(request, destinationOfArguments(args, defaultPort));
      return request;
    };
    Object.defineProperty(module, name, { value: wrapped, writable: true, configurable: true, enumerable: true });
  }
}

if (socketPath !== undefined && proxyUrl !== undefined) {
  const path = socketPath;
  const server = createServer((client) => {
    const upstream = connect(path);
    const unreachable = watchExchange(client, upstream);
    client.on("error", () => upstream.destroy());
    upstream.on("error", unreachable);
    client.pipe(heldUntilStored()).pipe(upstream);
    upstream.pipe(client);
  });
  server.unref();
  Object.defineProperty(globalThis, Symbol.for("weft.holdEgress"), { value: holdEgress });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(Number(new URL(proxyUrl).port), "127.0.0.1", () => resolve());
  });
  wrapFetch(path);
  wrapRequests(http, 80);
  wrapRequests(https, 443);
  // `import { get } from "node:http"` in user code reads the wrapped functions too.
  syncBuiltinESMExports();
}
