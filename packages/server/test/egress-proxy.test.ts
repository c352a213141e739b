import { mkdtempSync, rmSync } from "node:fs";
import { createServer as createHttpServer, type IncomingHttpHeaders, request, type Server } from "node:http";
import { type AddressInfo, createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EgressAllowEntry } from "../src/config/config.ts";
import { createEgressPolicy } from "../src/engine/egress/address-policy.ts";
import { type EgressProxy, type ResolveHost, startEgressProxy } from "../src/engine/egress/egress-proxy.ts";
import { createLogger } from "../src/shared/logger.ts";
import { createManualTimers } from "../src/shared/timers.ts";

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
const directory = mkdtempSync(join(tmpdir(), "weft-proxy-test-"));
const proxies: EgressProxy[] = [];
const resolutions: string[] = [];
const timers = createManualTimers();

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

async function startProxy(allow: EgressAllowEntry[]): Promise<string> {
  const socketPath = join(directory, `proxy-${proxies.length}.sock`);
  proxies.push(
    await startEgressProxy({
      socketPath,
      policy: createEgressPolicy(allow),
      resolveHost,
      logger: createLogger({ level: "silent" }),
      timers,
    }),
  );
  return socketPath;
}

function viaProxy(
  socketPath: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request({
      socketPath,
      method: options.method ?? "GET",
      path: options.path,
      headers: options.headers,
    });
    outgoing.on("response", (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    outgoing.on("error", reject);
    outgoing.end(options.body);
  });
}

/** CONNECT through the proxy; on success, sends `message` through the tunnel and returns the echo. */
function tunnel(socketPath: string, target: string, message: string): Promise<{ status: number; echoed?: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request({ socketPath, method: "CONNECT", path: target });
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

let guarded: string;
let open: string;

beforeAll(async () => {
  helper = createHttpServer((incoming, response) => {
    let body = "";
    incoming.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    incoming.on("end", () => {
      seen.push({ method: incoming.method, url: incoming.url, headers: incoming.headers, body });
      response.setHeader("x-helper", "yes");
      response.end(`got ${body}`);
    });
  });
  helperPort = await listening(helper);
  echo = createServer((socket) => socket.pipe(socket));
  echoPort = await listening(echo);
  guarded = await startProxy([]);
  open = await startProxy([{ kind: "cidr", address: "127.0.0.1", prefix: 32, family: "ipv4" }]);
});
afterAll(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  helper.close();
  echo.close();
  rmSync(directory, { recursive: true, force: true });
});

describe("the egress proxy", () => {
  it("forwards an absolute-URI request to an allowed destination, without the proxy's own headers", async () => {
    const answer = await viaProxy(open, {
      method: "POST",
      path: `http://127.0.0.1:${helperPort}/orders?id=7`,
      headers: { "proxy-authorization": "Basic c2VjcmV0", "x-tenant": "a", host: `127.0.0.1:${helperPort}` },
      body: "payload",
    });
    expect(answer).toEqual({ status: 200, body: "got payload" });
    const last = seen.at(-1);
    expect(last).toMatchObject({ method: "POST", url: "/orders?id=7", body: "payload" });
    expect(last?.headers["x-tenant"]).toBe("a");
    expect(last?.headers["proxy-authorization"]).toBeUndefined();
  });

  it("answers 403 with the reason for a destination that is not public, and connects nowhere", async () => {
    const before = seen.length;
    const answer = await viaProxy(guarded, { path: `http://127.0.0.1:${helperPort}/` });
    expect(answer.status).toBe(403);
    expect(answer.body).toBe("weft egress proxy: 127.0.0.1 is a loopback address, which workflow code may not reach\n");
    expect(seen.length).toBe(before);
  });

  it("refuses a name when every address it resolves to is refused", async () => {
    const answer = await viaProxy(guarded, { path: "http://internal.example/" });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatch(/internal\.example \(192\.168\.1\.20\) is a private address/);
  });

  it("connects to the address it checked and never resolves again, so a rebinding name gets the checked one", async () => {
    const before = resolutions.filter((name) => name === "svc.example").length;
    const answer = await viaProxy(open, { path: `http://svc.example:${helperPort}/first` });
    expect(answer).toEqual({ status: 200, body: "got " });
    expect(seen.at(-1)?.headers.host).toBe(`svc.example:${helperPort}`);
    expect(resolutions.filter((name) => name === "svc.example").length).toBe(before + 1);
    // The next lookup answers 10.9.9.9, which the same proxy refuses.
    expect((await viaProxy(open, { path: `http://svc.example:${helperPort}/second` })).status).toBe(403);
  });

  it("tunnels CONNECT to an allowed destination and refuses one that is not", async () => {
    expect(await tunnel(open, `127.0.0.1:${echoPort}`, "hello")).toEqual({ status: 200, echoed: "hello" });
    expect(await tunnel(guarded, `127.0.0.1:${echoPort}`, "hello")).toEqual({ status: 403 });
    expect(await tunnel(guarded, "169.254.169.254:80", "hello")).toEqual({ status: 403 });
    expect(await tunnel(guarded, "[::1]:443", "hello")).toEqual({ status: 403 });
    expect(await tunnel(guarded, "[::ffff:127.0.0.1]:443", "hello")).toEqual({ status: 403 });
  });

  it("answers 400 to what is not a proxy request and 502 to a name that does not resolve", async () => {
    expect((await viaProxy(open, { path: "/relative" })).status).toBe(400);
    expect((await viaProxy(open, { path: "https://example.com/" })).status).toBe(400);
    expect(await tunnel(open, "no-port.example", "x")).toEqual({ status: 400 });
    const unknown = await viaProxy(open, { path: "http://nowhere.example/" });
    expect(unknown).toEqual({ status: 502, body: "weft egress proxy: nowhere.example could not be resolved\n" });
  });

  it("gives up on a destination that does not answer within its deadline with 504", async () => {
    let arrived: () => void = () => undefined;
    const requestArrived = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const silent = createHttpServer(() => arrived());
    const silentPort = await listening(silent);
    try {
      const pending = viaProxy(open, { path: `http://127.0.0.1:${silentPort}/` });
      await requestArrived;
      expect(timers.pending()).toBe(1);
      timers.fireAll();
      expect(await pending).toEqual({
        status: 504,
        body: `weft egress proxy: 127.0.0.1:${silentPort} did not answer within 10 s\n`,
      });
    } finally {
      silent.closeAllConnections();
      silent.close();
    }
    expect(timers.pending()).toBe(0);
  });
});
