import { readdirSync } from "node:fs";
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { type AddressInfo, createServer, type Server, type Socket } from "node:net";
import {
  callRpc,
  type DeployedTenant,
  deployTenant,
  type ExecutionView,
  runToEnd,
  sandboxSuitesRunHere,
  startExecution,
  startTestPlatform,
  type TestPlatform,
  waitForEnd,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * Workflow code that attacks the egress proxy from inside bubblewrap: it holds tunnels, holds
 * connections that never speak, and downloads past its byte budget. The platform runs in this
 * process, so its descriptors are this process's; another tenant's API calls must all succeed
 * meanwhile, and each attacking execution must end with an error naming the limit it met.
 */
const attacker = `
import { connect } from "node:net";
import { get as httpGet } from "node:http";
import { get as httpsGet } from "node:https";
import { defineConfig, workflow } from "@weft/sdk";

/** Sockets kept open past the end of the execution, in the child. */
const held = [];

/** Runs \`open\` \`count\` times, \`batch\` at once; each resolves when its connection settled. */
async function inBatches(count, batch, open) {
  for (let done = 0; done < count; done += batch) {
    await Promise.all(Array.from({ length: Math.min(batch, count - done) }, open));
  }
}

/** One CONNECT through the forwarder: the answer's status line, or why it failed. */
function connectThrough(port, report) {
  return new Promise((resolve) => {
    const socket = connect(3128, "127.0.0.1");
    let text = "";
    const settle = (outcome) => {
      socket.removeAllListeners("data");
      resolve(outcome);
    };
    socket.on("error", () => settle("error"));
    socket.on("close", () => settle("closed"));
    socket.on("connect", () => socket.write("CONNECT 127.0.0.1:" + port + " HTTP/1.1\\r\\nhost: x\\r\\n\\r\\n"));
    socket.on("data", (chunk) => {
      text += chunk.toString("latin1");
      const end = text.indexOf("\\r\\n\\r\\n");
      if (end < 0) return;
      if (text.startsWith("HTTP/1.1 200")) {
        report.established += 1;
        held.push(socket);
      } else {
        report.refused += 1;
        report.refusal ??= text.slice(end + 4).trim();
        socket.destroy();
      }
      settle("answered");
    });
  }).then((outcome) => {
    if (outcome !== "answered") report.failed += 1;
  });
}

const messageOf = (error) => (error instanceof Error ? error.message : String(error));

function request(get, url) {
  return new Promise((resolve, reject) => {
    get(url, (response) => {
      response.resume();
      response.on("end", () => resolve(response.statusCode));
    }).on("error", reject);
  });
}

export default defineConfig({
  workflows: [
    workflow({ name: "tunnels", async run(input, ctx) {
      const report = await ctx.step("flood", async () => {
        const counts = { established: 0, refused: 0, failed: 0, refusal: undefined };
        await inBatches(input.count, input.batch, () => connectThrough(input.port, counts));
        return counts;
      });
      // The tunnels are still held: the workflow's own fetch meets the limit they broke.
      const error = await fetch("http://127.0.0.1:" + input.port + "/").then(() => undefined, messageOf);
      throw new Error(error ?? "fetch went through: " + JSON.stringify(report));
    } }),
    workflow({ name: "silent", async run(input, ctx) {
      const report = await ctx.step("flood", async () => {
        const answers = [];
        const open = () => new Promise((resolve) => {
          const socket = connect("/weft/egress.sock");
          let text = "";
          socket.on("data", (chunk) => { text += chunk.toString("latin1"); });
          socket.on("error", () => undefined);
          socket.on("connect", () => resolve(socket));
          socket.on("close", () => { answers.push(text); resolve(socket); });
        });
        const silent = [];
        for (let i = 0; i < input.hold; i += 1) silent.push(await open());
        const fetchError = await fetch("http://127.0.0.1:" + input.port + "/").then(() => undefined, messageOf);
        const closed = (socket) => socket.destroyed ? undefined : new Promise((resolve) => socket.once("close", resolve));
        await inBatches(input.count - input.hold, input.batch, () => open().then(closed));
        // The silent ones are answered and closed by the proxy's head deadline.
        await Promise.all(silent.map(closed));
        const count = (pattern) => answers.filter((text) => pattern.test(text)).length;
        return {
          fetchError,
          refused: count(/^HTTP\\/1\\.1 503/),
          timedOut: count(/^HTTP\\/1\\.1 408/),
          answers: answers.length,
          refusal: answers.find((text) => text.startsWith("HTTP/1.1 503"))?.split("\\r\\n\\r\\n")[1]?.trim(),
          timeout: answers.find((text) => text.startsWith("HTTP/1.1 408"))?.split("\\r\\n\\r\\n")[1]?.trim(),
        };
      });
      throw new Error(report.fetchError ?? "fetch went through: " + JSON.stringify(report));
    } }),
    workflow({ name: "download", async run(input) {
      const response = await fetch("http://127.0.0.1:" + input.port + "/");
      return (await response.arrayBuffer()).byteLength;
    } }),
    workflow({ name: "refused", async run(input) {
      if (input.api === "fetch") return (await fetch(input.url)).status;
      return request(input.api === "http" ? httpGet : httpsGet, input.url);
    } }),
  ],
});
`;

const neighbour = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [workflow({ name: "square", async run(input, ctx) { return ctx.step("square", () => input.n * input.n); } })],
});
`;

const runHere = await sandboxSuitesRunHere();
const MiB = 1024 * 1024;
const connectionsPerSandbox = 64;
const attackerWorkflows = ["tunnels", "silent", "download", "refused"];

/** A loopback listener that accepts and never answers, counting the connections it holds. */
async function startSlowListener(): Promise<{ server: Server; port: number; maxOpen: () => number }> {
  const open = new Set<Socket>();
  let maxOpen = 0;
  const server = createServer((socket) => {
    open.add(socket);
    maxOpen = Math.max(maxOpen, open.size);
    socket.on("error", () => undefined);
    socket.once("close", () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, maxOpen: () => maxOpen };
}

/** A loopback HTTP server that streams 32 MiB, counting the bytes the socket took. */
async function startStream(): Promise<{ server: HttpServer; port: number; sent: () => number }> {
  let sent = 0;
  const chunk = Buffer.alloc(64 * 1024, 7);
  const server = createHttpServer((_request, response) => {
    response.on("error", () => undefined);
    let left = 512;
    const pump = () => {
      while (left > 0 && !response.destroyed) {
        left -= 1;
        sent += chunk.length;
        if (!response.write(chunk)) return void response.once("drain", pump);
      }
      response.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port, sent: () => sent };
}

const openFds = () => readdirSync("/proc/self/fd").length;

describe.skipIf(!runHere)("hostile tenant: the egress proxy", () => {
  let weft: TestPlatform;
  let slow: Awaited<ReturnType<typeof startSlowListener>>;
  let stream: Awaited<ReturnType<typeof startStream>>;
  let victim: DeployedTenant;
  let tenant = 0;
  let refusedTarget: DeployedTenant | undefined;

  beforeAll(async () => {
    slow = await startSlowListener();
    stream = await startStream();
    weft = await startTestPlatform({
      env: {
        WEFT_SANDBOX_EGRESS_ALLOW: `127.0.0.1:${slow.port},127.0.0.1:${stream.port}`,
        WEFT_EGRESS_CONNECTIONS: String(connectionsPerSandbox),
        WEFT_EGRESS_MB_PER_EXECUTION: "1",
      },
      configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
    });
    victim = await deployTenant(weft, "bob@example.com", { source: neighbour, workflows: ["square"] });
  }, 60_000);
  afterAll(async () => {
    await weft?.stop();
    slow?.server.close();
    stream?.server.closeAllConnections();
    stream?.server.close();
  });

  /** An attacker's deployment of its own, so each attack has a sandbox process of its own. */
  async function attackerDeployment(): Promise<DeployedTenant> {
    tenant += 1;
    const attack = await deployTenant(weft, `mallory${tenant}@example.com`, {
      source: attacker,
      workflows: attackerWorkflows,
    });
    // Warm its sandbox, so that the descriptors of the process itself are in the baseline.
    await runToEnd(attack, "refused", { api: "fetch", url: `${weft.url}/healthz` });
    return attack;
  }

  /**
   * Runs the attack to its end while the other tenant lists its projects over and over, and
   * counts this process's descriptors meanwhile: every call must succeed.
   */
  async function underAttack(
    attack: DeployedTenant,
    workflow: string,
    input: unknown,
  ): Promise<{ ended: ExecutionView; fdsAbove: number; calls: number }> {
    const baseline = openFds();
    const executionId = await startExecution(attack, workflow, input);
    let ended: ExecutionView | undefined;
    const end = waitForEnd(attack, executionId, 120_000).then((execution) => {
      ended = execution;
      return execution;
    });
    let calls = 0;
    let fdsAbove = 0;
    while (ended === undefined) {
      const listed = await callRpc(weft.url, "projects.list", {}, { token: victim.owner.credential });
      expect(listed.status).toBe(200);
      calls += 1;
      fdsAbove = Math.max(fdsAbove, openFds() - baseline);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    fdsAbove = Math.max(fdsAbove, openFds() - baseline);
    expect((await runToEnd(victim, "square", { n: 7 })).output).toBe(49);
    return { ended: await end, fdsAbove, calls };
  }

  it("holds 20 000 CONNECT tunnels to WEFT_EGRESS_CONNECTIONS at once, within its descriptors, and the fetch that meets the limit says so", async () => {
    const attack = await attackerDeployment();
    const { ended, fdsAbove, calls } = await underAttack(attack, "tunnels", {
      port: slow.port,
      count: 20_000,
      batch: 500,
    });
    expect(calls).toBeGreaterThan(0);
    const report = ended.steps.find((step) => step.name === "flood")?.output as {
      established: number;
      refused: number;
      failed: number;
    };
    expect(report.established).toBeLessThanOrEqual(connectionsPerSandbox);
    // Every attempt is answered: the proxy refuses, or the child's forwarder when the proxy's backlog is full.
    expect(report).toMatchObject({ failed: 0 });
    expect(report.established + report.refused).toBe(20_000);
    expect(slow.maxOpen()).toBeLessThanOrEqual(connectionsPerSandbox);
    // A tunnel holds the child's connection and the upstream one; the slow listener is in this process too.
    expect(fdsAbove).toBeLessThan(3 * connectionsPerSandbox + 600);
    expect(ended.status).toBe("failed");
    expect(ended.error?.message).toBe(
      `egress refused: this sandbox holds ${connectionsPerSandbox} connections to the egress proxy, its limit (WEFT_EGRESS_CONNECTIONS)`,
    );
  }, 180_000);

  it("answers 5 000 silent connections to the proxy's socket at once or at the head deadline", async () => {
    const attack = await attackerDeployment();
    const { ended, fdsAbove } = await underAttack(attack, "silent", {
      port: slow.port,
      count: 5000,
      hold: connectionsPerSandbox,
      batch: 250,
    });
    const report = ended.steps.find((step) => step.name === "flood")?.output as {
      refused: number;
      timedOut: number;
      answers: number;
      refusal: string;
      timeout: string;
    };
    expect(report.answers).toBe(5000);
    expect(report.timedOut).toBeGreaterThan(0);
    expect(report.timedOut).toBeLessThanOrEqual(2 * connectionsPerSandbox);
    expect(report.refused + report.timedOut).toBe(5000);
    expect(report.refusal).toMatch(/its limit \(WEFT_EGRESS_CONNECTIONS\)/);
    expect(report.timeout).toBe(
      "weft egress proxy: egress refused: the request head did not arrive within 10 s of connecting",
    );
    expect(fdsAbove).toBeLessThan(2 * connectionsPerSandbox + 600);
    expect(ended.status).toBe("failed");
    expect(ended.error?.message).toMatch(/^egress refused: this sandbox holds 64 connections to the egress proxy/);
  }, 180_000);

  it("cuts a download past the byte budget of the execution, and the execution's error says so", async () => {
    const attack = await attackerDeployment();
    const before = stream.sent();
    const { ended } = await underAttack(attack, "download", { port: stream.port });
    expect(ended.status).toBe("failed");
    expect(ended.error?.message).toBe("egress budget of this execution used up: 1 MiB (WEFT_EGRESS_MB_PER_EXECUTION)");
    // Cut near the budget, not after the 32 MiB the server had to send.
    expect(stream.sent() - before).toBeLessThan(16 * MiB);
  }, 120_000);

  it.each([
    ["fetch", "http"],
    ["http", "http"],
    ["https", "https"],
  ])("fails a refused %s with the proxy's reason as the workflow's error", async (api, scheme) => {
    refusedTarget ??= await attackerDeployment();
    const attack = refusedTarget;
    const port = new URL(weft.url).port;
    const ended = await runToEnd(attack, "refused", { api, url: `${scheme}://127.0.0.1:${port}/healthz` });
    expect(ended.status).toBe("failed");
    expect(ended.error?.message).toBe(
      `egress to 127.0.0.1:${port} refused: loopback addresses are not reachable from workflow code (WEFT_SANDBOX_EGRESS=public; see WEFT_SANDBOX_EGRESS_ALLOW)`,
    );
  });
});
