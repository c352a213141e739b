import {
  type EngineHarness,
  type ExecutionRow,
  gatedConfigPreamble,
  openGate,
  startEngineHarness,
} from "@weft/testing";
import { and, count, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executionSteps, executions, spans } from "../src/db/schema/index.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";
import { createManualTimers } from "../src/shared/timers.ts";
import { cancelExecution } from "../src/workflows/cancel-execution.ts";
import { runWorkflow } from "../src/workflows/run-workflow.ts";

/** Workflow bodies (the inside of `async run(input, ctx)`), deployed as one bundle per project. */
type Bodies = Record<string, string>;

const once = { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 };

function configSource(bodies: Bodies, timeouts: Record<string, string> = {}): string {
  const workflows = Object.entries(bodies).map(
    ([name, body]) =>
      `workflow({ name: ${JSON.stringify(name)}, retries: { maxAttempts: 1 },${
        timeouts[name] === undefined ? "" : ` timeout: ${JSON.stringify(timeouts[name])},`
      } async run(input: any, ctx: any) {\n${body}\n} })`,
  );
  return `${gatedConfigPreamble}
import { writeSync } from "node:fs";
import { defineConfig, workflow } from "@weft/sdk";
const forever = () => new Promise(() => undefined);
/** Writes a message to the worker as the runtime frames it (channel-frames.ts), bypassing the runtime. */
function forge(message: unknown): void {
  const body = Buffer.from(JSON.stringify(message));
  const header = Buffer.alloc(5);
  header[0] = 0xf7;
  header.writeUInt32BE(body.length, 1);
  const frame = Buffer.concat([header, body]);
  // The channel is non-blocking: a long frame goes in pieces, as the socket takes them.
  for (let written = 0; written < frame.length; ) {
    try {
      written += writeSync(3, frame, written);
    } catch (error) {
      if ((error as { code?: string }).code !== "EAGAIN") throw error;
    }
  }
}
/** Drawn once per child process, when the bundle loads. */
const token = Math.random();
const childToken = () => token;
void gate; void forever; void childToken; void forge;

export default defineConfig({ workflows: [
${workflows.join(",\n")}
] });
`;
}

function manifestOf(bodies: Bodies, timeoutsMs: Record<string, number> = {}) {
  return {
    version: 1,
    workflows: Object.keys(bodies).map((name) => ({
      name,
      retries: once,
      ...(timeoutsMs[name] === undefined ? {} : { timeoutMs: timeoutsMs[name] }),
    })),
  };
}

const ended = (row: ExecutionRow) => row.status === "failed" || row.status === "succeeded";
const MiB = 1024 * 1024;

async function storedStepNames(engine: EngineHarness, id: string): Promise<string[]> {
  const rows = await engine.database.db
    .select({ name: executionSteps.name })
    .from(executionSteps)
    .where(eq(executionSteps.executionId, id))
    .orderBy(executionSteps.sequence);
  return rows.map((row) => row.name);
}

async function waitForStep(engine: EngineHarness, id: string, name: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await storedStepNames(engine, id)).includes(name)) {
    if (Date.now() > deadline) throw new Error(`step ${name} of ${id} was never stored`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** What each hostile value does: the final status, and for a failure the words that name the problem. */
interface HostileCase {
  body: string;
  status: "failed" | "succeeded";
  error?: RegExp;
  output?: unknown;
}

const hostileValues: Record<string, HostileCase> = {
  "throw-bigint": { body: "throw 10n;", status: "failed", error: /10n/ },
  "throw-cyclic": {
    body: "const a: any = { name: 'loop' }; a.self = a; throw a;",
    status: "failed",
    error: /object/i,
  },
  "throw-proxy": {
    body: `const trap = () => { throw new Error("trap"); };
      throw new Proxy({}, { get: trap, getPrototypeOf: trap, ownKeys: trap, getOwnPropertyDescriptor: trap, has: trap });`,
    status: "failed",
    error: /cannot be described/,
  },
  "throw-error-message-getter": {
    body: `const error = new Error("hidden");
      Object.defineProperty(error, "message", { get() { throw new Error("no message for you"); } });
      throw error;`,
    status: "failed",
    error: /message could not be read/,
  },
  "throw-error-stack-getter": {
    body: `const error = new Error("stackless");
      Object.defineProperty(error, "stack", { get() { throw new Error("no stack"); } });
      throw error;`,
    status: "failed",
    error: /stackless/,
  },
  "throw-error-name-getter": {
    body: `const error = new Error("nameless");
      Object.defineProperty(error, "name", { get() { throw new Error("no name"); } });
      throw error;`,
    status: "failed",
    error: /nameless/,
  },
  "step-tojson-throws": {
    body: `return ctx.step("s", () => ({ toJSON() { throw new Error("refusing to serialise"); } }));`,
    status: "failed",
    error: /result of step "s" cannot be stored as JSON: Error: refusing to serialise/,
  },
  "output-tojson-throws": {
    body: `return { toJSON() { throw new Error("refusing to serialise"); } };`,
    status: "failed",
    error: /output of the workflow cannot be stored as JSON/,
  },
  "log-bigint": {
    body: `ctx.log.info("counting", { n: 1n }); return 1;`,
    status: "failed",
    error: /fields of a log line cannot be stored as JSON.*BigInt/,
  },
  "step-name-nul": {
    body: `return ctx.step("a\\u0000b", () => 1);`,
    status: "failed",
    error: /step name contains a NUL character/,
  },
  "step-name-lone-surrogate": {
    body: `return ctx.step("a\\uD800b", () => 1);`,
    status: "failed",
    error: /step name contains a lone UTF-16 surrogate/,
  },
  "result-nul": {
    body: `return ctx.step("s", () => ({ text: "a\\u0000b" }));`,
    status: "failed",
    error: /result of step "s" cannot be stored: text contains a NUL character/,
  },
  "result-lone-surrogate": {
    body: `return ctx.step("s", () => ["\\uDC00"]);`,
    status: "failed",
    error: /result of step "s" cannot be stored: \[0\] contains a lone UTF-16 surrogate/,
  },
  "output-nul": { body: `return "a\\u0000b";`, status: "failed", error: /output of the workflow cannot be stored/ },
  "output-lone-surrogate": {
    body: `return { ["k\\uD800"]: 1 };`,
    status: "failed",
    error: /output of the workflow cannot be stored.*lone UTF-16 surrogate/,
  },
  "log-nul": {
    body: `await ctx.step("s", () => ctx.log.info("a\\u0000b")); return 1;`,
    status: "failed",
    error: /log message contains a NUL character/,
  },
  "log-lone-surrogate": {
    body: `ctx.log.warn("\\uD800"); return 1;`,
    status: "failed",
    error: /log message contains a lone UTF-16 surrogate/,
  },
  "log-field-key-nul": {
    body: `ctx.log.info("m", { ["k\\u0000"]: 1 }); return 1;`,
    status: "failed",
    error: /fields of a log line cannot be stored: \["k\\u0000"\] contains a NUL character/,
  },
  "step-name-1mb": {
    body: `return ctx.step("n".repeat(1024 * 1024), () => 1);`,
    status: "failed",
    error: /step name is 1048576 characters long; the limit is 200/,
  },
  "step-name-201": {
    body: `return ctx.step("n".repeat(201), () => 1);`,
    status: "failed",
    error: /step name is 201 characters long; the limit is 200/,
  },
  "sleep-99999999d": {
    body: `await ctx.sleep("forever", "99999999d"); return 1;`,
    status: "failed",
    error: /the sleep "forever" lasts 8639999913600000 ms; the limit is 1 year/,
  },
  "throw-symbol": { body: `throw Symbol("odd");`, status: "failed", error: /Symbol\(odd\)/ },
  "step-returns-symbol": {
    body: `return ctx.step("s", () => Symbol("odd"));`,
    status: "failed",
    error: /result of step "s" is Symbol\(odd\), which JSON cannot represent/,
  },
  "step-returns-function": {
    body: `return ctx.step("s", () => () => 1);`,
    status: "failed",
    error: /result of step "s" is a function, which JSON cannot represent/,
  },
  "undefined-in-arrays": {
    body: `return ctx.step("s", () => [1, undefined, 2]);`,
    status: "succeeded",
    output: [1, null, 2],
  },
  "throw-huge-string": {
    body: `throw "x".repeat(10 * 1024 * 1024);`,
    status: "failed",
    error: /x… \(10485760 characters\)$/,
  },
  "null-prototype-result": {
    body: `return ctx.step("s", () => { const o = Object.create(null); o.a = 1; return o; });`,
    status: "succeeded",
    output: { a: 1 },
  },
  "throw-null-prototype": {
    body: `const o = Object.create(null); o.reason = "bare"; throw o;`,
    status: "failed",
    error: /"reason":"bare"/,
  },
  "error-with-cyclic-cause": {
    body: `class LoopError extends Error {}
      const error: any = new LoopError("round and round"); error.cause = error; throw error;`,
    status: "failed",
    error: /round and round/,
  },
  "result-over-4mib": {
    body: `return ctx.step("big", () => "x".repeat(5 * 1024 * 1024));`,
    status: "failed",
    error: /^the result of step "big" is 5\.0 MiB; the limit is 4 MiB$/,
  },
  "ten-thousand-logs": {
    body: `await ctx.step("chatty", () => { for (let i = 0; i < 10000; i += 1) ctx.log.info("line " + i, { i }); });
      return "done";`,
    status: "succeeded",
    output: "done",
  },
  "log-line-over-16kib": {
    body: `ctx.log.info("x".repeat(20 * 1024)); return 1;`,
    status: "failed",
    error: /a log line \(message and fields\) is 20\.0 KiB; the limit is 16 KiB/,
  },
  "result-too-deep": {
    body: `return ctx.step("deep", () => { let v: any = 1; for (let i = 0; i < 100; i += 1) v = [v]; return v; });`,
    status: "failed",
    error: /nested more than 64 levels deep/,
  },
  "proto-step-name": {
    body: `return ctx.step("__proto__", () => "a step like any other");`,
    status: "succeeded",
    output: "a step like any other",
  },
  "forged-finished-with-nul": {
    body: `forge({ type: "finished", executionId: ctx.execution.id,
        outcome: { ok: true, result: { value: "a\\u0000b" } }, logs: [] });
      await forever();`,
    status: "failed",
    error: /output of the workflow cannot be stored: \(root\) contains a NUL character/,
  },
  "forged-malformed-message": {
    body: `forge({ type: "step", executionId: ctx.execution.id, sequence: "first" }); await forever();`,
    status: "failed",
    error: /the workflow process sent a malformed message/,
  },
};

describe("hostile tenant: values that cannot be stored or reported", () => {
  let engine: EngineHarness;

  beforeAll(async () => {
    engine = await startEngineHarness({ memoryMb: 512 });
    const bodies: Bodies = { ...Object.fromEntries(Object.entries(hostileValues).map(([n, c]) => [n, c.body])) };
    bodies.healthy = `return ctx.step("square", () => input.n * input.n);`;
    await engine.deploy("prj_hostile_values", configSource(bodies), manifestOf(bodies));
  });
  afterAll(async () => {
    await engine.stop();
  });

  it.each(Object.entries(hostileValues))("%s ends within 10 s", async (name, expected) => {
    const id = await engine.run("prj_hostile_values", name, {});
    const row = await engine.waitFor(id, ended, 10_000);
    expect(row.status).toBe(expected.status);
    if (expected.error !== undefined) expect(row.error?.message).toMatch(expected.error);
    if (expected.output !== undefined) expect(row.output).toEqual(expected.output);
  });

  it("still runs a healthy workflow afterwards", async () => {
    const id = await engine.run("prj_hostile_values", "healthy", { n: 7 });
    expect((await engine.waitFor(id, (row) => row.status === "succeeded", 10_000)).output).toBe(49);
  });
});

describe("hostile tenant: poison workflows that end their own process", () => {
  let engine: EngineHarness;
  const poisons: Bodies = {
    exit: `await ctx.step("bye", () => process.exit(1));`,
    sigkill: `await ctx.step("bye", () => process.kill(process.pid, "SIGKILL"));`,
    abort: `await ctx.step("bye", () => process.abort());`,
    unattributable: `forge({ type: "nonsense" }); await forever();`,
    "close-channel": `await ctx.step("bye", async () => (await import("node:fs")).closeSync(3));`,
    "poisoned-globals": `
      JSON.stringify = () => { throw new Error("poisoned stringify"); };
      JSON.parse = () => { throw new Error("poisoned parse"); };
      Buffer.concat = () => { throw new Error("poisoned concat"); };
      Buffer.from = () => { throw new Error("poisoned from"); };
      String.prototype.isWellFormed = () => { throw new Error("poisoned isWellFormed"); };
      return ctx.step("after", () => "still reported");`,
  };

  beforeAll(async () => {
    engine = await startEngineHarness({ memoryMb: 256 });
    for (const [name, body] of Object.entries(poisons)) {
      const bodies = { [name]: body, healthy: `return ctx.step("square", () => input.n * input.n);` };
      await engine.deploy(`prj_poison_${name}`, configSource(bodies), manifestOf(bodies));
    }
  });
  afterAll(async () => {
    await engine.stop();
  });

  it.each([
    ["exit", /stopped unexpectedly \(exit code 1\)/],
    ["sigkill", /stopped unexpectedly \(signal SIGKILL\)/],
    ["abort", /stopped unexpectedly \(signal SIGABRT\)/],
    ["unattributable", /the workflow process sent a malformed message/],
    ["close-channel", /stopped unexpectedly \(exit code 0\)/],
  ])("%s fails its execution, and the worker keeps serving", async (name, message) => {
    const id = await engine.run(`prj_poison_${name}`, name, {});
    const failed = await engine.waitFor(id, ended, 10_000);
    expect(failed.status).toBe("failed");
    expect(failed.error?.message).toMatch(message);
    const next = await engine.run(`prj_poison_${name}`, "healthy", { n: 3 });
    expect((await engine.waitFor(next, (row) => row.status === "succeeded", 10_000)).output).toBe(9);
  });

  it("still reports the end of a workflow that replaced JSON, Buffer and String.prototype", async () => {
    const id = await engine.run("prj_poison_poisoned-globals", "poisoned-globals", {});
    const row = await engine.waitFor(id, ended, 10_000);
    expect(row.status).toBe("failed");
    expect(row.error?.message).toMatch(/poisoned isWellFormed/);
    const next = await engine.run("prj_poison_exit", "healthy", { n: 4 });
    expect((await engine.waitFor(next, (row) => row.status === "succeeded", 10_000)).output).toBe(16);
  });
});

describe("hostile tenant: memory outside the V8 heap", () => {
  let engine: EngineHarness;
  const bodies: Bodies = {
    hoarder: `await ctx.step("hoard", async () => {
        const kept: Buffer[] = [];
        for (let i = 0; i < 8; i += 1) {
          kept.push(Buffer.alloc(64 * 1024 * 1024, 1));
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await forever();
      });`,
    healthy: `return ctx.step("square", () => input.n * input.n);`,
  };

  beforeAll(async () => {
    engine = await startEngineHarness({ memoryMb: 128 });
    await engine.deploy("prj_hoarder", configSource(bodies), manifestOf(bodies));
  });
  afterAll(async () => {
    await engine.stop();
  });

  it("kills a process holding Buffers over the cap and fails the attempt with OutOfMemoryError", async () => {
    const id = await engine.run("prj_hoarder", "hoarder", {});
    const failed = await engine.waitFor(id, ended, 10_000);
    expect(failed.status).toBe("failed");
    expect(failed.error?.name).toBe("OutOfMemoryError");
    expect(failed.error?.message).toMatch(/over the limit of 128 MB/);
    const next = await engine.run("prj_hoarder", "healthy", { n: 5 });
    expect((await engine.waitFor(next, (row) => row.status === "succeeded", 10_000)).output).toBe(25);
  });
});

describe("hostile tenant: a channel broken beside an innocent execution", () => {
  let engine: EngineHarness;
  let deploymentId: string;
  const bodies: Bodies = {
    breaker: `await ctx.step("where", () => childToken()); await ctx.step("wait", () => gate("breaker"));
      writeSync(3, "}\\n"); await forever();`,
    sibling: `await ctx.step("where", () => childToken()); await ctx.step("wait", () => gate("sibling"));
      return childToken();`,
  };

  beforeAll(async () => {
    engine = await startEngineHarness();
    deploymentId = await engine.deploy("prj_channel", configSource(bodies), manifestOf(bodies));
  });
  afterAll(async () => {
    await engine.stop();
  });

  it("requeues the innocent sibling without using an attempt, and fails the breaker once it runs alone", async () => {
    const sibling = await engine.run("prj_channel", "sibling", {});
    await waitForStep(engine, sibling, "where");
    const breaker = await engine.run("prj_channel", "breaker", {});
    await waitForStep(engine, breaker, "where");
    openGate(engine.dataDir, deploymentId, "breaker");

    // Nothing tells which of the two wrote the bytes: both go back to the queue, an attempt kept, and
    // each runs next in a child of its own. The breaker breaks that one too and fails, named.
    const failed = await engine.waitFor(breaker, (row) => row.status === "failed", 10_000);
    expect(failed.attempt).toBe(1);
    expect(failed.error).toMatchObject({
      name: "SandboxProtocolError",
      message: expect.stringMatching(/broke its channel to the worker: it sent bytes that are not a frame \(7d 0a\)/),
    });
    openGate(engine.dataDir, deploymentId, "sibling");
    const done = await engine.waitFor(sibling, (row) => row.status === "succeeded", 10_000);
    expect(done.attempt).toBe(1);
    expect(done.error).toBeNull();
  });
});

describe("hostile tenant: an infinite loop that is cancelled", () => {
  let engine: EngineHarness;
  let deploymentId: string;
  const bodies: Bodies = {
    // Inside bubblewrap every child has the same pid (its own PID namespace): a token drawn once per
    // child process tells them apart.
    looper: `await ctx.step("where", () => childToken()); await ctx.step("spin", () => { for (;;) {} });`,
    sibling: `await ctx.step("where", () => childToken()); await ctx.step("wait", () => gate("sibling"));
      return childToken();`,
  };

  beforeAll(async () => {
    engine = await startEngineHarness();
    deploymentId = await engine.deploy("prj_loop", configSource(bodies), manifestOf(bodies));
  });
  afterAll(async () => {
    await engine.stop();
  });

  it("kills the child 5 s after the cancel, ends it cancelled, and requeues its sibling without using an attempt", async () => {
    const sibling = await engine.run("prj_loop", "sibling", {});
    await waitForStep(engine, sibling, "where");
    const looper = await engine.run("prj_loop", "looper", {});
    await waitForStep(engine, looper, "where");
    const where = async (id: string) => {
      const [row] = await engine.database.db
        .select({ result: executionSteps.result })
        .from(executionSteps)
        .where(and(eq(executionSteps.executionId, id), eq(executionSteps.name, "where")));
      return row?.result.value;
    };
    const looperChild = await where(looper);
    expect(await where(sibling)).toBe(looperChild);

    expect(valueOrThrow(await cancelExecution(engine.database.db, engine, { executionId: looper }))).toEqual({
      status: "running",
    });
    engine.clock.advance(5001);
    const cancelled = await engine.waitFor(looper, (row) => row.status !== "running", 10_000);
    expect(cancelled.status).toBe("cancelled");
    expect(cancelled.error?.name).toBe("CancelledError");

    openGate(engine.dataDir, deploymentId, "sibling");
    const done = await engine.waitFor(sibling, (row) => row.status !== "running" && row.status !== "queued", 10_000);
    expect(done.status).toBe("succeeded");
    expect(done.attempt).toBe(1);
    expect(done.output).not.toBe(looperChild);
    const attempts = await engine.database.db
      .select({ name: spans.name, statusMessage: spans.statusMessage })
      .from(spans)
      .where(and(eq(spans.executionId, sibling), eq(spans.kind, "attempt")))
      .orderBy(spans.startTime);
    expect(attempts).toEqual([
      { name: "attempt 1", statusMessage: "the workflow process was stopped by the worker" },
      { name: "attempt 1", statusMessage: null },
    ]);
  });
});

describe("hostile tenant: the default and the maximum timeout", () => {
  let engine: EngineHarness;
  const bodies: Bodies = {
    untimed: `await ctx.step("started", () => true); await ctx.step("wait", () => gate("never"));`,
    patient: `await ctx.step("started", () => true); await ctx.step("wait", () => gate("never"));`,
  };

  beforeAll(async () => {
    engine = await startEngineHarness({ defaultTimeoutMs: 60_000, maxTimeoutMs: 120_000 });
    await engine.deploy(
      "prj_timeouts",
      configSource(bodies, { patient: "1h" }),
      manifestOf(bodies, { patient: 3_600_000 }),
    );
  });
  afterAll(async () => {
    await engine.stop();
  });

  it("fails an attempt of a workflow without a timeout once the default passes", async () => {
    const id = await engine.run("prj_timeouts", "untimed", {});
    await waitForStep(engine, id, "started");
    engine.clock.advance(60_001);
    const failed = await engine.waitFor(id, ended, 10_000);
    expect(failed.error).toMatchObject({
      name: "TimeoutError",
      message: "the attempt exceeded the default timeout (WEFT_DEFAULT_TIMEOUT) of 60000 ms",
    });
  });

  it("caps a workflow's own longer timeout at the maximum", async () => {
    const id = await engine.run("prj_timeouts", "patient", {});
    await waitForStep(engine, id, "started");
    engine.clock.advance(120_001);
    const failed = await engine.waitFor(id, ended, 10_000);
    expect(failed.error).toMatchObject({
      name: "TimeoutError",
      message: "the attempt exceeded the platform's maximum timeout (WEFT_MAX_TIMEOUT) of 120000 ms",
    });
  });

  it("fails an attempt whose bundle never finishes loading once the timeout passes", async () => {
    const neverLoads = `
import { defineConfig, workflow } from "@weft/sdk";
setInterval(() => undefined, 1000);
await new Promise(() => undefined);
export default defineConfig({ workflows: [workflow({ name: "stuck-at-load", async run() { return 1; } })] });`;
    await engine.deploy("prj_never_loads", neverLoads, {
      version: 1,
      workflows: [{ name: "stuck-at-load", retries: once }],
    });
    const id = await engine.run("prj_never_loads", "stuck-at-load", {});
    await engine.waitFor(id, (row) => row.status === "running", 10_000);
    engine.clock.advance(60_001);
    const failed = await engine.waitFor(id, ended, 10_000);
    expect(failed.error).toMatchObject({ name: "TimeoutError" });
  });

  it("runs none of the code of an attempt that timed out while its process was starting", async () => {
    const slowLoad = `${gatedConfigPreamble}
import { defineConfig, workflow } from "@weft/sdk";
await gate("loaded");
let runs = 0;
export default defineConfig({
  workflows: [
    workflow({ name: "late", async run() { runs += 1; return runs; } }),
    workflow({ name: "runs", async run() { return runs; } }),
  ],
});`;
    const deploymentId = await engine.deploy("prj_slow_load", slowLoad, {
      version: 1,
      workflows: [
        { name: "late", retries: once },
        { name: "runs", retries: once },
      ],
    });
    const late = await engine.run("prj_slow_load", "late", {});
    await engine.waitFor(late, (row) => row.status === "running", 10_000);
    engine.clock.advance(60_001);
    expect((await engine.waitFor(late, ended, 10_000)).error).toMatchObject({ name: "TimeoutError" });
    const counted = await engine.run("prj_slow_load", "runs", {});
    openGate(engine.dataDir, deploymentId, "loaded");
    expect(await engine.waitFor(counted, ended, 20_000)).toMatchObject({ status: "succeeded", output: 0 });
  });
});

describe("hostile tenant: one workspace cannot take every slot", () => {
  let engine: EngineHarness;
  const stuck: Bodies = { stuck: `await ctx.step("hold", () => gate("never"));` };
  const quick: Bodies = { quick: `return ctx.step("answer", () => 42);` };

  beforeAll(async () => {
    engine = await startEngineHarness({ concurrency: 8, workspaceShare: 0.5 });
    await engine.deploy("prj_tenant_b", configSource(stuck), manifestOf(stuck), { owner: "b@tenants.weft.invalid" });
    await engine.deploy("prj_tenant_a", configSource(quick), manifestOf(quick), { owner: "a@tenants.weft.invalid" });
  });
  afterAll(async () => {
    await engine.stop();
  });

  const running = async (projectId: string) => {
    const [row] = await engine.database.db
      .select({ n: count() })
      .from(executions)
      .where(and(eq(executions.projectId, projectId), eq(executions.status, "running")));
    return row?.n ?? 0;
  };

  it("runs workspace A's execution while 30 of workspace B's are stuck", async () => {
    for (let i = 0; i < 30; i += 1) await engine.run("prj_tenant_b", "stuck", {});
    const deadline = Date.now() + 60_000;
    while ((await running("prj_tenant_b")) < 4) {
      if (Date.now() > deadline) throw new Error("workspace B's executions were never claimed");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const id = await engine.run("prj_tenant_a", "quick", {});
    // B's stuck executions never end, so A finishes only if it was given a slot of its own.
    expect((await engine.waitFor(id, (row) => row.status === "succeeded", 60_000)).output).toBe(42);
    expect(await running("prj_tenant_b")).toBe(4);
  }, 150_000);
});

describe("hostile tenant: size caps", () => {
  let engine: EngineHarness;
  const bodies: Bodies = {
    "big-output": `return "x".repeat(4 * 1024 * 1024 + 1);`,
    "near-limit-steps": `for (let i = 0; i < 20; i += 1) await ctx.step("s" + i, () => "x".repeat(4 * 1024 * 1024 - 1024));
      return "all stored";`,
    "year-sleep": `await ctx.sleep("long", "365d"); return "awake";`,
    "forged-big-step": `forge({ type: "step", executionId: ctx.execution.id, sequence: 99, name: "forged",
        outcome: { ok: true, result: { value: "x".repeat(5 * 1024 * 1024) } }, durationMs: 0, logs: [] });
      return ctx.step("honest", () => "small");`,
    "forged-ahead-step": `forge({ type: "step", executionId: ctx.execution.id, sequence: 99, name: "forged", ahead: true,
        outcome: { ok: true, result: { value: "x".repeat(5 * 1024 * 1024) } }, durationMs: 0, logs: [] });
      return ctx.step("honest", () => "small");`,
    echo: `return ctx.step("echo", () => input);`,
  };

  beforeAll(async () => {
    engine = await startEngineHarness({ memoryMb: 512 });
    await engine.deploy("prj_sizes", configSource(bodies), manifestOf(bodies));
  });
  afterAll(async () => {
    await engine.stop();
  });

  it("fails an output over 4 MiB without storing it", async () => {
    const id = await engine.run("prj_sizes", "big-output", {});
    const failed = await engine.waitFor(id, ended, 10_000);
    expect(failed.error).toMatchObject({
      name: "OutputTooLargeError",
      message: "the output of the workflow is 4.0 MiB; the limit is 4 MiB",
    });
    expect(failed.output).toBeNull();
  });

  it("stores at most 64 MiB per execution: the step that would pass it fails, naming the limit", async () => {
    const id = await engine.run("prj_sizes", "near-limit-steps", {});
    const failed = await engine.waitFor(id, ended, 30_000);
    expect(failed.status).toBe("failed");
    expect(failed.error?.name).toBe("ExecutionStorageLimitError");
    expect(failed.error?.message).toMatch(
      /^storing step "s16" \(4\.0 MiB\) would bring .* to 68\.0 MiB; the limit is 64 MiB$/,
    );
    expect(await storedStepNames(engine, id)).toHaveLength(16);
  });

  it("accepts a sleep of one year, and refuses a longer one (see the table above)", async () => {
    const id = await engine.run("prj_sizes", "year-sleep", {});
    expect((await engine.waitFor(id, (row) => row.status === "sleeping", 10_000)).runAt.getTime()).toBe(
      engine.clock.now().getTime() + 365 * 86_400_000,
    );
  });

  it("never stores a forged step message over the limit", async () => {
    const id = await engine.run("prj_sizes", "forged-big-step", {});
    expect((await engine.waitFor(id, ended, 10_000)).output).toBe("small");
    expect(await storedStepNames(engine, id)).toEqual(["honest"]);
  });

  it("fails the attempt of a forged step the code claims to have gone on from, and ends its process", async () => {
    const id = await engine.run("prj_sizes", "forged-ahead-step", {});
    const failed = await engine.waitFor(id, ended, 10_000);
    expect(failed.status).toBe("failed");
    expect(failed.error?.message).toMatch(/^the result of step "forged" is 5\.0 MiB; the limit is 4 MiB/);
    expect(await storedStepNames(engine, id)).toEqual([]);
    const after = await engine.run("prj_sizes", "echo", { text: "still served" });
    expect((await engine.waitFor(after, ended, 10_000)).output).toEqual({ text: "still served" });
  });

  it("refuses an input over 4 MiB at enqueue, naming the limit and queuing nothing", async () => {
    const before = await engine.database.db.select({ n: count() }).from(executions);
    const run = await runWorkflow(engine.database.db, engine, {
      projectId: "prj_sizes",
      workflow: "echo",
      input: { text: "x".repeat(4 * MiB) },
    });
    expect(run).toMatchObject({
      ok: false,
      failure: { kind: "invalid", message: expect.stringMatching(/the input is 4\.0 MiB; the limit is 4 MiB/) },
    });
    expect(await engine.database.db.select({ n: count() }).from(executions)).toEqual(before);
    const small = valueOrThrow(
      await runWorkflow(engine.database.db, engine, {
        projectId: "prj_sizes",
        workflow: "echo",
        input: { text: "fits" },
      }),
    );
    expect((await engine.waitFor(small.executionId, ended, 10_000)).output).toEqual({ text: "fits" });
  });
});

describe("hostile tenant: a database that refuses what the worker records", () => {
  let engine: EngineHarness;
  const bodies: Bodies = {
    doomed: `return ctx.step("fine", () => "stored");`,
    "end-unreachable-once": `return ctx.step("fine", () => "stored");`,
    // Over 64 KiB, the step's answer is waited for: the code catches the refusal itself.
    "refused-step": `try { await ctx.step("refused", () => "x".repeat(70 * 1024)); } catch (error: any) { return error.name + ": " + error.message; }`,
    // A small step the code goes on from: the refusal fails the attempt, and nothing past it is stored.
    "refused-ahead": `try { await ctx.step("refused", () => 1); } catch { return "caught"; }
      return ctx.step("after", () => 2);`,
  };

  beforeAll(async () => {
    engine = await startEngineHarness();
    await engine.deploy("prj_refusals", configSource(bodies), manifestOf(bodies));
    // A stand-in for any value PostgreSQL refuses at the last moment: the database itself says no.
    await engine.database.db.execute(sql`create function weft_test_refuse_end() returns trigger language plpgsql as $$
      begin
        if new.workflow = 'doomed' and new.status = 'succeeded' then raise exception 'refused by the test'; end if;
        return new;
      end $$`);
    await engine.database.db.execute(sql`create function weft_test_refuse_step() returns trigger language plpgsql as $$
      begin
        if new.name = 'refused' then raise exception 'refused by the test'; end if;
        return new;
      end $$`);
    await engine.database.db.execute(
      sql`create trigger weft_test_refuse before update on executions for each row execute function weft_test_refuse_end()`,
    );
    // A server restarting under the end, once: a sequence, since the failed transaction undoes any write.
    await engine.database.db.execute(sql`create sequence weft_test_unreachable_ends`);
    await engine.database.db.execute(sql`create function weft_test_unreachable_end() returns trigger language plpgsql as $$
      begin
        if new.workflow = 'end-unreachable-once' and new.status = 'succeeded'
          and nextval('weft_test_unreachable_ends') = 1 then
          raise exception 'terminating connection due to administrator command' using errcode = '57P01';
        end if;
        return new;
      end $$`);
    await engine.database.db.execute(
      sql`create trigger weft_test_unreachable before update on executions for each row execute function weft_test_unreachable_end()`,
    );
    await engine.database.db.execute(
      sql`create trigger weft_test_refuse before insert on execution_steps for each row execute function weft_test_refuse_step()`,
    );
  });
  afterAll(async () => {
    await engine.stop();
  });

  it("fails an execution whose end cannot be stored, instead of leaving it running", async () => {
    const id = await engine.run("prj_refusals", "doomed", {});
    const failed = await engine.waitFor(id, ended, 10_000);
    expect(failed.status).toBe("failed");
    expect(failed.error).toEqual({
      name: "StorageError",
      message: "the end of the attempt could not be stored (SQLSTATE P0001)",
    });
    expect(failed.leaseOwner).toBeNull();
  });

  it("ends an execution whose end met a restarting server once, instead of failing it", async () => {
    const id = await engine.run("prj_refusals", "end-unreachable-once", {});
    const succeeded = await engine.waitFor(id, ended, 10_000);
    expect(succeeded).toMatchObject({ status: "succeeded", output: "stored", error: null });
    expect(succeeded.leaseOwner).toBeNull();
  });

  it("fails a step the database refuses, in the workflow's own code", async () => {
    const id = await engine.run("prj_refusals", "refused-step", {});
    expect((await engine.waitFor(id, ended, 10_000)).output).toBe(
      "StorageError: the step could not be stored (SQLSTATE P0001)",
    );
  });

  it("fails the attempt with the refusal of a small step the code went on from, storing nothing past it", async () => {
    const id = await engine.run("prj_refusals", "refused-ahead", {});
    const failed = await engine.waitFor(id, ended, 10_000);
    if (engine.isolation.mode !== "bwrap") {
      // Without the egress forwarder each step waits for its answer, as over 64 KiB.
      expect(failed.output).toBe("caught");
      return;
    }
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatchObject({
      name: "StorageError",
      message: "the step could not be stored (SQLSTATE P0001)",
    });
    expect(await storedStepNames(engine, id)).toEqual([]);
  });
});

describe("hostile tenant: a bundle whose top level never returns", () => {
  const timers = createManualTimers();
  let engine: EngineHarness;
  const neverLoads = `
import { defineConfig, workflow } from "@weft/sdk";
setInterval(() => undefined, 1000);
await new Promise(() => undefined);
export default defineConfig({ workflows: [workflow({ name: "stuck-at-load", async run() { return 1; } })] });`;

  beforeAll(async () => {
    engine = await startEngineHarness({}, { timers });
    await engine.deploy("prj_load_limit", neverLoads, {
      version: 1,
      workflows: [{ name: "stuck-at-load", retries: once }],
    });
  });
  afterAll(async () => {
    await engine.stop();
  });

  it("kills the process once the load limit passes, failing the attempts waiting for it", async () => {
    const id = await engine.run("prj_load_limit", "stuck-at-load", {});
    await engine.waitFor(id, (row) => row.status === "running", 10_000);
    const deadline = Date.now() + 10_000;
    // The limit's timer is set once the process is forked, a moment after the claim; the memory
    // watchdog's and the idle sweep's are always waiting.
    while (timers.pending() < 3) {
      if (Date.now() > deadline) throw new Error("the bundle load limit was never armed");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    timers.fireAll();
    const failed = await engine.waitFor(id, ended, 10_000);
    expect(failed.error).toMatchObject({
      name: "SandboxStartError",
      message: "the deployment's bundle did not load within 60 s",
    });
  });
});
