import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type IncomingHttpHeaders, request, type Server } from "node:http";
import { type AddressInfo, connect, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createEgressPolicy, type EgressAllowEntry } from "../src/engine/egress/address-policy.ts";
import type { EgressLimits } from "../src/engine/egress/egress-limits.ts";
import { type EgressChild, type EgressProxy, startEgressProxy } from "../src/engine/egress/egress-proxy.ts";
import { egressRefusalHeader, egressStatusPath } from "../src/engine/egress/egress-refusal.ts";
import type { ResolveHost } from "../src/engine/egress/resolve-host.ts";
import { createLogger } from "../src/shared/logger.ts";
import { createManualTimers, type ManualTimers } from "../src/shared/timers.ts";

interface Seen {
  method: string | undefined;
  url: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

let helper: Server;
let helperPort: number;
const seen: Seen[] = [];
let echo: ReturnType<typeof createServer>;
let echoPort: number;
let big: Server;
let bigPort: number;
const directory = mkdtempSync(join(tmpdir(), "weft-proxy-test-"));
const proxies: EgressProxy[] = [];
const resolutions: string[] = [];
const loopbackAllowed: EgressAllowEntry[] = [{ kind: "cidr", address: "127.0.0.1", prefix: 32, family: "ipv4" }];
const roomy: EgressLimits = { connectionsPerChild: 64, bytesPerExecution: 64 * 1024 * 1024, fdShare: 10_000 };

async function listening(server: Server | ReturnType<typeof createServer>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as AddressInfo).port;
}

/** A name that rebinds: loopback on the first lookup, a private address on every later one. */
const resolveHost: ResolveHost = async (hostname) => {
  resolutions.push(hostname);
  if (hostname === "svc.example")
    return resolutions.filter((name) => name === hostname).length === 1 ? ["127.0.0.1"] : ["10.9.9.9"];
  if (hostname === "internal.example") return ["192.168.1.20", "127.0.0.1"];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
};

interface TestChild {
  proxy: EgressProxy;
  child: EgressChild;
  socketPath: string;
  timers: ManualTimers;
}

/** A proxy of its own (its own timers) with one child that has one execution running. */
function startChild(allow: EgressAllowEntry[], limits: Partial<EgressLimits> = {}): TestChild {
  const timers = createManualTimers();
  const proxy = startEgressProxy({
    directory: mkdtempSync(join(directory, "p")),
    policy: createEgressPolicy(allow),
    resolveHost,
    logger: createLogger({ level: "silent" }),
    timers,
    limits: { ...roomy, ...limits },
  });
  proxies.push(proxy);
  const child = proxy.openChild(`child-${proxies.length}`);
  child.executionStarted();
  return { proxy, child, socketPath: child.socketPath, timers };
}

function viaProxy(
  socketPath: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const outgoing = request({
      socketPath,
      method: options.method ?? "GET",
      path: options.path,
      headers: options.headers,
      agent: false,
    });
    outgoing.on("response", (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body, headers: response.headers }));
      response.on("error", reject);
    });
    outgoing.on("error", reject);
    outgoing.end(options.body);
  });
}

/** CONNECT through the proxy; on success, sends `message` through the tunnel and returns the echo. */
function tunnel(socketPath: string, target: string, message: string): Promise<{ status: number; echoed?: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ socketPath, method: "CONNECT", path: target, agent: false });
    outgoing.on("connect", (response, socket: Socket) => {
      if (response.statusCode !== 200) {
        socket.destroy();
        return resolve({ status: response.statusCode ?? 0 });
      }
      socket.once("data", (chunk: Buffer) => {
        socket.destroy();
        resolve({ status: 200, echoed: chunk.toString() });
      });
      socket.write(message);
    });
    outgoing.on("error", reject);
    outgoing.end();
  });
}

/** A raw connection to the proxy: what it sent until it closed. */
function rawConnection(socketPath: string): { socket: Socket; received: Promise<string>; opened: Promise<void> } {
  const socket = connect(socketPath);
  let text = "";
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  socket.on("error", () => undefined);
  return {
    socket,
    opened: new Promise((resolve) => socket.once("connect", () => resolve())),
    received: new Promise((resolve) => socket.once("close", () => resolve(text))),
  };
}

/** An open tunnel to the echo server. */
async function openTunnel(socketPath: string): Promise<Socket> {
  const { socket, opened } = rawConnection(socketPath);
  await opened;
  socket.write(`CONNECT 127.0.0.1:${echoPort} HTTP/1.1\r\nhost: 127.0.0.1:${echoPort}\r\n\r\n`);
  const head = await new Promise<string>((resolve) => {
    let text = "";
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\r\n\r\n")) {
        socket.off("data", onData);
        resolve(text);
      }
    };
    socket.on("data", onData);
  });
  expect(head).toMatch(/^HTTP\/1\.1 200/);
  return socket;
}

function closed(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) resolve();
    else socket.once("close", () => resolve());
  });
}

/** Resolves once `condition` holds, looking again on every turn of the event loop. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setImmediate(resolve));
}

function reasonOf(answer: string): string | undefined {
  const line = answer.split("\r\n").find((text) => text.toLowerCase().startsWith(`${egressRefusalHeader}:`));
  return line === undefined ? undefined : decodeURIComponent(line.slice(egressRefusalHeader.length + 1).trim());
}

let guarded: TestChild;
let open: TestChild;

beforeAll(async () => {
  helper = createHttpServer((incoming, response) => {
    let body = "";
    incoming.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    incoming.on("end", () => {
      seen.push({ method: incoming.method, url: incoming.url, headers: incoming.headers, body });
      response.setHeader("x-helper", "yes");
      // An upstream cannot speak for the proxy: this header is stripped.
      response.setHeader(egressRefusalHeader, "forged");
      response.end(`got ${body}`);
    });
  });
  helperPort = await listening(helper);
  echo = createServer((socket) => {
    socket.on("error", () => undefined);
    socket.pipe(socket);
  });
  echoPort = await listening(echo);
  big = createHttpServer((_incoming, response) => {
    response.on("error", () => undefined);
    response.end(Buffer.alloc(64 * 1024, 1));
  });
  bigPort = await listening(big);
  guarded = startChild([]);
  open = startChild(loopbackAllowed);
});
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  helper.close();
  echo.close();
  big.close();
  rmSync(directory, { recursive: true, force: true });
});

describe("the egress proxy", () => {
  it("forwards an absolute-URI request to an allowed destination, without the proxy's own headers", async () => {
    const answer = await viaProxy(open.socketPath, {
      method: "POST",
      path: `http://127.0.0.1:${helperPort}/orders?id=7`,
      headers: { "proxy-authorization": "Basic c2VjcmV0", "x-tenant": "a", host: `127.0.0.1:${helperPort}` },
      body: "payload",
    });
    expect(answer).toMatchObject({ status: 200, body: "got payload" });
    expect(answer.headers["x-helper"]).toBe("yes");
    expect(answer.headers[egressRefusalHeader]).toBeUndefined();
    const last = seen.at(-1);
    expect(last).toMatchObject({ method: "POST", url: "/orders?id=7", body: "payload" });
    expect(last?.headers["x-tenant"]).toBe("a");
    expect(last?.headers["proxy-authorization"]).toBeUndefined();
  });

  it("answers 403 with the reason, in its body and its refusal header, for a destination that is not public", async () => {
    const before = seen.length;
    const answer = await viaProxy(guarded.socketPath, { path: `http://127.0.0.1:${helperPort}/` });
    const reason = `egress to 127.0.0.1:${helperPort} refused: loopback addresses are not reachable from workflow code (WEFT_SANDBOX_EGRESS=public; see WEFT_SANDBOX_EGRESS_ALLOW)`;
    expect(answer.status).toBe(403);
    expect(answer.body).toBe(`weft egress proxy: ${reason}\n`);
    expect(decodeURIComponent(String(answer.headers[egressRefusalHeader]))).toBe(reason);
    expect(seen.length).toBe(before);
  });

  it("refuses a name when every address it resolves to is refused, naming the address", async () => {
    const answer = await viaProxy(guarded.socketPath, { path: "http://internal.example/" });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatch(
      /egress to internal\.example:80 refused: internal\.example resolves to 192\.168\.1\.20, and private addresses are not reachable/,
    );
  });

  it("connects to the address it checked and never resolves again, so a rebinding name gets the checked one", async () => {
    const before = resolutions.filter((name) => name === "svc.example").length;
    const answer = await viaProxy(open.socketPath, { path: `http://svc.example:${helperPort}/first` });
    expect(answer).toMatchObject({ status: 200, body: "got " });
    expect(seen.at(-1)?.headers.host).toBe(`svc.example:${helperPort}`);
    expect(resolutions.filter((name) => name === "svc.example").length).toBe(before + 1);
    // The next lookup answers 10.9.9.9, which the same proxy refuses.
    expect((await viaProxy(open.socketPath, { path: `http://svc.example:${helperPort}/second` })).status).toBe(403);
  });

  it("tunnels CONNECT to an allowed destination and refuses one that is not", async () => {
    expect(await tunnel(open.socketPath, `127.0.0.1:${echoPort}`, "hello")).toEqual({ status: 200, echoed: "hello" });
    expect(await tunnel(guarded.socketPath, `127.0.0.1:${echoPort}`, "hello")).toEqual({ status: 403 });
    expect(await tunnel(guarded.socketPath, "169.254.169.254:80", "hello")).toEqual({ status: 403 });
    expect(await tunnel(guarded.socketPath, "[::1]:443", "hello")).toEqual({ status: 403 });
    expect(await tunnel(guarded.socketPath, "[::ffff:127.0.0.1]:443", "hello")).toEqual({ status: 403 });
  });

  it("answers 400 to what is not a proxy request and 502 to a name that does not resolve", async () => {
    expect((await viaProxy(open.socketPath, { path: "/relative" })).status).toBe(400);
    expect((await viaProxy(open.socketPath, { path: "https://example.com/" })).status).toBe(400);
    expect(await tunnel(open.socketPath, "no-port.example", "x")).toEqual({ status: 400 });
    const unknown = await viaProxy(open.socketPath, { path: "http://nowhere.example/" });
    expect(unknown).toMatchObject({
      status: 502,
      body: "weft egress proxy: egress to nowhere.example:80 failed: nowhere.example could not be resolved\n",
    });
  });

  it("gives up on a destination that does not answer within its deadline with 504", async () => {
    const { socketPath, timers } = startChild(loopbackAllowed);
    let arrived: () => void = () => undefined;
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const silent = createHttpServer(() => arrived());
    const silentPort = await listening(silent);
    try {
      const pending = viaProxy(socketPath, { path: `http://127.0.0.1:${silentPort}/` });
      await requestArrived;
      timers.fireAll();
      expect(await pending).toMatchObject({
        status: 504,
        body: `weft egress proxy: egress to 127.0.0.1:${silentPort} failed: it did not answer within 10 s\n`,
      });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
  });
});

describe("the egress proxy's limits per child", () => {
  it("answers 408 and closes a connection that sends no request head within the header timeout", async () => {
    const { socketPath, child, timers } = startChild(loopbackAllowed);
    const silent = rawConnection(socketPath);
    await silent.opened;
    await until(() => child.usage().connections === 1);
    timers.fireAll();
    const answer = await silent.received;
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect(reasonOf(answer)).toBe("egress refused: the request head did not arrive within 10 s of connecting");
    await until(() => child.usage().connections === 0);
  });

  it("cuts a tunnel through which nothing moved for the idle timeout, and not one that is in use", async () => {
    const { socketPath, timers } = startChild(loopbackAllowed);
    const socket = await openTunnel(socketPath);
    // Bytes through the tunnel arm the idle timer afresh: firing the one armed before cuts nothing.
    const stale = timers.pending();
    socket.write("ping");
    await new Promise<void>((resolve) => socket.once("data", () => resolve()));
    expect(timers.pending()).toBe(stale);
    timers.fireAll();
    await closed(socket);
    expect(socket.destroyed).toBe(true);
  });

  it("refuses a connection past WEFT_EGRESS_CONNECTIONS with 503 and its reason, and closes it at once", async () => {
    const { socketPath, child } = startChild(loopbackAllowed, { connectionsPerChild: 2 });
    const held = [rawConnection(socketPath), rawConnection(socketPath)];
    await Promise.all(held.map((connection) => connection.opened));
    await until(() => child.usage().connections === 2);
    const answer = await rawConnection(socketPath).received;
    expect(answer).toMatch(/^HTTP\/1\.1 503/);
    expect(reasonOf(answer)).toBe(
      "egress refused: this sandbox holds 2 connections to the egress proxy, its limit (WEFT_EGRESS_CONNECTIONS)",
    );
    expect(child.usage().connections).toBe(2);
    for (const connection of held) connection.socket.destroy();
    await until(() => child.usage().connections === 0);
    expect(await tunnel(socketPath, `127.0.0.1:${echoPort}`, "again")).toEqual({ status: 200, echoed: "again" });
  });

  it("counts connections per child: another child's are its own", async () => {
    const first = startChild(loopbackAllowed, { connectionsPerChild: 1 });
    const second = first.proxy.openChild("neighbour");
    second.executionStarted();
    const held = rawConnection(first.socketPath);
    await held.opened;
    await until(() => first.child.usage().connections === 1);
    expect(await rawConnection(first.socketPath).received).toMatch(/^HTTP\/1\.1 503/);
    expect(await tunnel(second.socketPath, `127.0.0.1:${echoPort}`, "mine")).toEqual({ status: 200, echoed: "mine" });
    held.socket.destroy();
  });

  it("refuses connections past its share of file descriptors for all children together with 503", async () => {
    // The two listening sockets take 2 of the 4; a connection needs room for itself and its upstream.
    const { proxy, socketPath } = startChild(loopbackAllowed, { fdShare: 4 });
    const other = proxy.openChild("other");
    other.executionStarted();
    const held = rawConnection(socketPath);
    await held.opened;
    await until(() => proxy.fdsInUse() === 3);
    const answer = await rawConnection(other.socketPath).received;
    expect(answer).toMatch(/^HTTP\/1\.1 503/);
    expect(reasonOf(answer)).toBe(
      "egress refused: the platform's egress proxy holds its share of 4 file descriptors; try again later",
    );
    held.socket.destroy();
    await until(() => proxy.fdsInUse() === 2);
    expect(await tunnel(other.socketPath, `127.0.0.1:${echoPort}`, "room")).toEqual({ status: 200, echoed: "room" });
  });

  it("cuts the child's tunnels once its bytes pass the budget, refuses it with the reason, and lets it go on when another execution starts", async () => {
    const { socketPath, child } = startChild(loopbackAllowed, { bytesPerExecution: 1000 });
    const socket = await openTunnel(socketPath);
    // 600 bytes out and 600 echoed back: 1200, past the 1000 of one execution.
    socket.write(Buffer.alloc(600, 7));
    await closed(socket);
    expect(child.usage()).toMatchObject({ usedBytes: 1200, allowedBytes: 1000 });
    const reason = "egress budget of this execution used up: 1000 bytes (WEFT_EGRESS_MB_PER_EXECUTION)";
    const refused = rawConnection(socketPath);
    refused.socket.write(`CONNECT 127.0.0.1:${echoPort} HTTP/1.1\r\nhost: x\r\n\r\n`);
    const answer = await refused.received;
    expect(answer).toMatch(/^HTTP\/1\.1 403/);
    expect(reasonOf(answer)).toBe(reason);
    const forwarded = await viaProxy(socketPath, { path: `http://127.0.0.1:${helperPort}/` });
    expect(forwarded.status).toBe(403);
    const status = await viaProxy(socketPath, { path: egressStatusPath });
    expect(decodeURIComponent(String(status.headers[egressRefusalHeader]))).toBe(reason);
    child.executionStarted();
    expect(await tunnel(socketPath, `127.0.0.1:${echoPort}`, "more")).toEqual({ status: 200, echoed: "more" });
    expect((await viaProxy(socketPath, { path: egressStatusPath })).status).toBe(204);
  });

  it("cuts a forwarded download that passes the budget", async () => {
    const { socketPath, child } = startChild(loopbackAllowed, { bytesPerExecution: 16 * 1024 });
    await expect(viaProxy(socketPath, { path: `http://127.0.0.1:${bigPort}/` })).rejects.toThrow();
    expect(child.usage().usedBytes).toBeGreaterThan(16 * 1024);
    expect(child.usage().usedBytes).toBeLessThan(64 * 1024);
  });

  it("refuses a child with no execution running: no execution, no budget", async () => {
    const { proxy } = startChild(loopbackAllowed);
    const idle = proxy.openChild("idle");
    expect(await tunnel(idle.socketPath, `127.0.0.1:${echoPort}`, "x")).toEqual({ status: 403 });
  });

  it("cuts every connection of a child when it closes", async () => {
    const { socketPath, child } = startChild(loopbackAllowed);
    const socket = await openTunnel(socketPath);
    await child.close();
    await closed(socket);
    expect(socket.destroyed).toBe(true);
  });
});
