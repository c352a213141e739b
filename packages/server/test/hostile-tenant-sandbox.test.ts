import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readdirSync } from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { type AddressInfo, connect, createServer, type Server } from "node:net";
import { join } from "node:path";
import {
  type DeployedTenant,
  deployTenant,
  type EngineHarness,
  freePort,
  runToEnd,
  sandboxSuitesRunHere,
  startEngineHarness,
  startTestPlatform,
  type TestPlatform,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Workflow code written by an attacker, run in a started platform under bubblewrap. Each workflow
 * wraps its attempt in a step that reports what happened, so the test sees the outcome inside the
 * sandbox and checks the host side on its own.
 */
const source = `
import { readFileSync, readdirSync } from "node:fs";
import { get } from "node:http";
import { connect, createServer } from "node:net";
import { DatabaseSync } from "node:sqlite";
import { defineConfig, workflow } from "@weft/sdk";

const attempt = async (fn) => {
  try {
    return { ok: await fn() };
  } catch (error) {
    const chain = [];
    for (let cause = error; cause !== undefined && chain.length < 5; cause = cause.cause) chain.push(cause);
    return {
      error: String(chain.map((cause) => cause.code).find((code) => typeof code === "string") ?? error),
      message: chain.map((cause) => String(cause.message ?? cause)).join(" <- "),
    };
  }
};
const once = { maxAttempts: 1 };

export default defineConfig({
  workflows: [
    workflow({ name: "tcp", retries: once, async run(input, ctx) {
      return ctx.step("connect", () => attempt(() => new Promise((resolve, reject) => {
        const socket = connect(input.port, "127.0.0.1");
        socket.once("connect", () => { socket.destroy(); resolve("connected"); });
        socket.once("error", reject);
      })));
    } }),
    workflow({ name: "fetch", retries: once, async run(input, ctx) {
      return ctx.step("fetch", () => attempt(async () => {
        const response = await fetch(input.url);
        return { status: response.status, body: await response.text() };
      }));
    } }),
    workflow({ name: "get", retries: once, async run(input, ctx) {
      return ctx.step("get", () => attempt(() => new Promise((resolve, reject) => {
        get(input.url, (response) => {
          let body = "";
          response.setEncoding("utf8");
          response.on("data", (chunk) => { body += chunk; });
          response.on("end", () => resolve({ status: response.statusCode, body }));
        }).on("error", reject);
      })));
    } }),
    workflow({ name: "listen", retries: once, async run(input, ctx) {
      return ctx.step("listen", () => attempt(() => new Promise((resolve, reject) => {
        const server = createServer((socket) => socket.end("inside"));
        server.once("error", reject);
        server.listen(input.port, "0.0.0.0", () => resolve(server.address().port));
      })));
    } }),
    workflow({ name: "kill", retries: once, async run(input, ctx) {
      return ctx.step("kill", () => attempt(() => {
        process.kill(input.target === "parent" ? process.ppid : input.target, "SIGKILL");
        return "sent";
      }));
    } }),
    workflow({ name: "sqlite", retries: once, async run(input, ctx) {
      return ctx.step("write", () => input.paths.map((path) => {
        try {
          const db = new DatabaseSync(path);
          db.exec("create table if not exists stolen (x)");
          db.close();
          return "written";
        } catch (error) {
          return String(error.message);
        }
      }));
    } }),
    workflow({ name: "snoop", retries: once, async run(input, ctx) {
      return ctx.step("snoop", async () => ({
        passwd: await attempt(() => readFileSync("/etc/passwd", "utf8")),
        passwdThroughSqlite: await attempt(() => new DatabaseSync("/etc/passwd", { readOnly: true }).prepare("select 1").get()),
        dataDir: await attempt(() => readdirSync(input.dataDir)),
        dataDirThroughSqlite: await attempt(() => new DatabaseSync(input.dataDir + "/weft.db", { readOnly: true }).prepare("select 1").get()),
        env: { ...process.env },
      }));
    } }),
    workflow({ name: "healthy", retries: once, async run(input, ctx) {
      return ctx.step("square", () => input.n * input.n);
    } }),
  ],
});
`;

const workflows = ["tcp", "fetch", "get", "listen", "kill", "sqlite", "snoop", "healthy"];

interface Attempt<T = unknown> {
  ok?: T;
  error?: string;
  message?: string;
}

// The kill workflows would reach the test runner itself without a PID namespace: they run only
// where bubblewrap works (CI installs it and sets WEFT_TEST_REQUIRE_SANDBOX=1 so that it cannot skip).
const runHere = await sandboxSuitesRunHere();

/** A platform with the attacker's deployment, and an owner identity to call it with. */
function deployHostile(weft: TestPlatform): Promise<DeployedTenant> {
  return deployTenant(weft, "mallory@example.com", { source, workflows });
}

async function stepOutput<T>(target: DeployedTenant, workflow: string, input: unknown): Promise<T> {
  const execution = await runToEnd(target, workflow, input);
  expect(execution.status).toBe("succeeded");
  return execution.output as T;
}

/** A loopback TCP server that counts the connections it accepts. */
async function startListener(): Promise<{ server: Server; port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, connections: () => count };
}

/** A loopback HTTP helper, standing in for a trusted internal service. */
async function startHelper(): Promise<{ server: HttpServer; port: number; requests: () => number }> {
  let count = 0;
  const server = createHttpServer((_request, response) => {
    count += 1;
    response.end("hello from the helper");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, requests: () => count };
}

/** A refusal fails the call with the proxy's reason as its message (Node's own error is its cause). */
function expectProxyRefusal(result: Attempt, reason: RegExp = /^egress to \S+ refused: /): void {
  expect(result.ok).toBeUndefined();
  expect(result.message).toMatch(reason);
}

function connectFromHost(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve("connected");
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

/** A process of the platform's user that a tenant would like to kill; it answers "pong" while alive. */
function startVictim(): ChildProcess {
  return spawn(process.execPath, ["-e", 'process.stdin.on("data", () => process.stdout.write("pong"))'], {
    stdio: ["pipe", "pipe", "ignore"],
  });
}

function ping(victim: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    if (victim.exitCode !== null || victim.signalCode !== null) return resolve("dead");
    victim.stdout?.once("data", (chunk: Buffer) => resolve(chunk.toString()));
    victim.once("exit", () => resolve("dead"));
    victim.stdin?.write("ping\n");
  });
}

const hostResolver = async (hostname: string): Promise<string[]> => {
  if (hostname === "rebound.example") return ["127.0.0.1"];
  if (hostname === "mixed.example") return ["10.1.2.3", "::1"];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
};

describe.skipIf(!runHere)("hostile tenant: workflow code under bubblewrap", () => {
  let target: DeployedTenant;
  let helper: Awaited<ReturnType<typeof startHelper>>;
  const sentinel = `sentinel-${randomBytes(8).toString("hex")}`;

  beforeAll(async () => {
    helper = await startHelper();
    // The platform runs in this process: anything of its environment a tenant could read would carry this.
    process.env.WEFT_HOSTILE_SENTINEL = sentinel;
    const weft = await startTestPlatform({
      configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
      resolveHost: hostResolver,
    });
    target = await deployHostile(weft);
  });
  afterAll(async () => {
    delete process.env.WEFT_HOSTILE_SENTINEL;
    await target?.weft.stop();
    helper?.server.close();
  });

  it("runs under bubblewrap with public egress, and /healthz says so", async () => {
    const response = await fetch(`${target.weft.url}/healthz`);
    expect(await response.json()).toEqual({
      status: "ok",
      sandbox: { mode: "bwrap", egress: "public", cgroups: expect.stringMatching(/^(v1|v2|off)$/) },
    });
  });

  it("cannot open TCP to PostgreSQL's port or to a loopback server, which sees no connection", async () => {
    const listener = await startListener();
    try {
      const postgres = await stepOutput<Attempt>(target, "tcp", { port: 5432 });
      expect(postgres.ok).toBeUndefined();
      expect(postgres.error).toMatch(/ECONNREFUSED|ENETUNREACH/);
      const loopback = await stepOutput<Attempt>(target, "tcp", { port: listener.port });
      expect(loopback.ok).toBeUndefined();
      expect(listener.connections()).toBe(0);
    } finally {
      listener.server.close();
    }
  });

  it("is refused the platform's own port by the egress proxy", async () => {
    const url = `${target.weft.url}/healthz`;
    expectProxyRefusal(await stepOutput<Attempt>(target, "fetch", { url }));
    expectProxyRefusal(
      await stepOutput<Attempt>(target, "get", { url }),
      /^egress to 127\.0\.0\.1:\d+ refused: loopback/,
    );
  });

  it("is refused the cloud metadata address", async () => {
    const url = "http://169.254.169.254/latest/meta-data/";
    expectProxyRefusal(await stepOutput<Attempt>(target, "fetch", { url }));
    expectProxyRefusal(
      await stepOutput<Attempt>(target, "get", { url }),
      /^egress to 169\.254\.169\.254:80 refused: link-local/,
    );
  });

  it("is refused a host name that resolves to loopback, over http and https alike", async () => {
    const url = `http://rebound.example:${helper.port}/`;
    expectProxyRefusal(await stepOutput<Attempt>(target, "fetch", { url }));
    expectProxyRefusal(await stepOutput<Attempt>(target, "fetch", { url: `https://rebound.example:${helper.port}/` }));
    expectProxyRefusal(
      await stepOutput<Attempt>(target, "get", { url }),
      /^egress to rebound\.example:\d+ refused: rebound\.example resolves to 127\.0\.0\.1, and loopback/,
    );
    expectProxyRefusal(await stepOutput<Attempt>(target, "fetch", { url: "http://mixed.example/" }));
    expect(helper.requests()).toBe(0);
  });

  it("is refused a loopback helper that no WEFT_SANDBOX_EGRESS_ALLOW entry exempts", async () => {
    expectProxyRefusal(await stepOutput<Attempt>(target, "fetch", { url: `http://127.0.0.1:${helper.port}/hello` }));
    expect(helper.requests()).toBe(0);
  });

  it("can listen inside its own network namespace, where the host cannot connect", async () => {
    const port = await freePort();
    const listened = await stepOutput<Attempt<number>>(target, "listen", { port });
    expect(listened.ok).toBe(port);
    expect(await connectFromHost(port)).toBe("ECONNREFUSED");
  });

  it("cannot kill the platform, a process of the platform's user or anything else, and the platform keeps serving", async () => {
    const victim = startVictim();
    try {
      expect(await ping(victim)).toBe("pong");
      const outcomes: unknown[] = [];
      for (const signalled of ["parent", -1, victim.pid]) {
        const execution = await runToEnd(target, "kill", { target: signalled });
        expect(["succeeded", "failed"]).toContain(execution.status);
        outcomes.push(execution.output);
      }
      // The victim's pid does not exist in the sandbox's PID namespace.
      expect(outcomes[2]).toMatchObject({ error: "ESRCH" });
      expect(await ping(victim)).toBe("pong");
      expect((await fetch(`${target.weft.url}/healthz`)).status).toBe(200);
      expect(await stepOutput<number>(target, "healthy", { n: 12 })).toBe(144);
    } finally {
      victim.kill("SIGKILL");
    }
  });

  it("writes nothing on the host through node:sqlite", async () => {
    const dataDir = target.weft.platform.context.config.dataDir;
    const bundleDir = join(dataDir, "bundles", target.deploymentId);
    const name = `stolen-${randomBytes(6).toString("hex")}.db`;
    const hostPaths = [join(bundleDir, name), join(dataDir, name), join("/tmp", name)];
    const results = await stepOutput<string[]>(target, "sqlite", {
      paths: [...hostPaths, `/weft/bundle/${name}`],
    });
    expect(results).toHaveLength(4);
    for (const path of hostPaths) expect(existsSync(path)).toBe(false);
    expect(readdirSync(bundleDir)).toEqual(["bundle.mjs"]);
  });

  it("reads nothing of the host: no /etc/passwd, no data dir, no environment", async () => {
    const dataDir = target.weft.platform.context.config.dataDir;
    const seen = await stepOutput<{
      passwd: Attempt;
      passwdThroughSqlite: Attempt;
      dataDir: Attempt;
      dataDirThroughSqlite: Attempt;
      env: Record<string, string>;
    }>(target, "snoop", { dataDir });
    expect(seen.passwd.error).toBe("ERR_ACCESS_DENIED");
    // Past Node's permission model, the file is not there at all.
    expect(seen.passwdThroughSqlite.message).toMatch(/unable to open database file/);
    expect(seen.dataDir.error).toBe("ERR_ACCESS_DENIED");
    expect(seen.dataDirThroughSqlite.message).toMatch(/unable to open database file/);
    expect(JSON.stringify(seen.env)).not.toContain(sentinel);
    expect(Object.keys(seen.env).sort()).toEqual(
      ["HTTPS_PROXY", "HTTP_PROXY", "PWD", "NODE_ENV", "NODE_USE_ENV_PROXY", "TZ", "WEFT_EGRESS_SOCKET"].sort(),
    );
  });
});

describe.skipIf(!runHere)("hostile tenant: WEFT_SANDBOX_EGRESS_ALLOW", () => {
  let target: DeployedTenant;
  let helper: Awaited<ReturnType<typeof startHelper>>;

  beforeAll(async () => {
    helper = await startHelper();
    const weft = await startTestPlatform({
      env: { WEFT_SANDBOX_EGRESS_ALLOW: `127.0.0.1:${helper.port}` },
      configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
    });
    target = await deployHostile(weft);
  });
  afterAll(async () => {
    await target?.weft.stop();
    helper?.server.close();
  });

  it("lets fetch reach the exempt host:port through the proxy, and nothing beside it", async () => {
    const allowed = await stepOutput<Attempt<{ status: number; body: string }>>(target, "fetch", {
      url: `http://127.0.0.1:${helper.port}/hello`,
    });
    expect(allowed.ok).toEqual({ status: 200, body: "hello from the helper" });
    expect(helper.requests()).toBe(1);
    expectProxyRefusal(await stepOutput<Attempt>(target, "fetch", { url: `${target.weft.url}/healthz` }));
  });
});

describe.skipIf(!runHere)("hostile tenant: WEFT_SANDBOX_EGRESS=all (single tenant)", () => {
  let engine: EngineHarness;

  beforeAll(async () => {
    engine = await startEngineHarness({ sandbox: { egress: "all" } });
    const retries = { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 };
    await engine.deploy("prj_single", source, { version: 1, workflows: workflows.map((name) => ({ name, retries })) });
  });
  afterAll(async () => {
    await engine.stop();
  });

  async function output<T>(workflow: string, input: unknown): Promise<T> {
    const id = await engine.run("prj_single", workflow, input);
    return (await engine.waitFor(id, (row) => row.status === "succeeded")).output as T;
  }

  it("shares the host's network, as documented: loopback TCP connects", async () => {
    const listener = await startListener();
    try {
      expect(await output<Attempt>("tcp", { port: listener.port })).toEqual({ ok: "connected" });
    } finally {
      listener.server.close();
    }
  });

  it("still keeps its own processes, files and environment", async () => {
    const victim = startVictim();
    try {
      expect((await output<Attempt>("kill", { target: victim.pid })).error).toBe("ESRCH");
      expect(await ping(victim)).toBe("pong");
    } finally {
      victim.kill("SIGKILL");
    }
    const seen = await output<{ passwdThroughSqlite: Attempt; env: Record<string, string> }>("snoop", {
      dataDir: engine.dataDir,
    });
    expect(seen.passwdThroughSqlite.message).toMatch(/unable to open database file/);
    expect(Object.keys(seen.env).sort()).toEqual(["NODE_ENV", "PWD", "TZ"]);
  });
});
