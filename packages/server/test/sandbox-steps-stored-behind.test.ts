import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import {
  type EngineHarness,
  type ReadySandboxChild,
  sandboxSuitesRunHere,
  startEngineHarness,
  startReadySandboxChild,
} from "@weft/testing";
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executionSteps } from "../src/db/schema/index.ts";
import { createFrameDecoder, encodeFrame } from "../src/engine/sandbox/channel-frames.ts";

/**
 * A sandbox child driven over its channel by the test, which stands where the worker stands and
 * answers each step when it chooses: what the workflow does before a step's answer comes.
 */

const bundle = `export default { workflows: [
  { name: "fetches", async run(input, ctx) {
    await ctx.step("a", () => 1);
    await ctx.step("b", () => 2);
    return ctx.step("c", async () => (await fetch(input.url)).text());
  } },
  { name: "ends", async run(_input, ctx) { return ctx.step("a", () => "done"); } },
  { name: "sleepy", async run(_input, ctx) {
    await ctx.step("slow", () => new Promise((resolve) => setTimeout(() => resolve(1), 300)));
    return ctx.step("after", () => 2);
  } },
  { name: "sends", async run(_input, ctx) {
    await ctx.step("a", () => 1);
    return ctx.sendEvent("notify", { name: "order.paid", data: {} });
  } },
  { name: "cancellable", async run(input, ctx) {
    await ctx.step("a", () => 1);
    await ctx.step("b", async () => (await fetch(input.url)).text());
    return ctx.step("c", () => 3);
  } },
  { name: "large", async run(_input, ctx) {
    await ctx.step("big", () => "x".repeat(100 * 1024));
    return ctx.step("after", () => 1);
  } },
  { name: "many", async run(_input, ctx) {
    for (let i = 0; i < 100; i += 1) await ctx.step("s" + i, () => i);
    return "all";
  } },
]};`;

interface Frame {
  type: string;
  executionId?: string;
  sequence?: number;
  name?: string;
  ahead?: boolean;
  outcome?: { ok: boolean; result?: { value?: unknown }; error?: { name: string; message: string } };
}

/** The test's end of a child's channel: frames in the order they came, and answers sent back. */
function drive(child: ReadySandboxChild) {
  const channel = child.child.stdio[3] as Socket;
  const decoder = createFrameDecoder(64 * 1024 * 1024);
  const frames: Frame[] = [];
  let arrived: (() => void) | undefined;
  channel.on("data", (chunk: Buffer) => {
    for (const text of decoder.push(chunk).frames) frames.push(JSON.parse(text) as Frame);
    arrived?.();
  });
  /** The next frame, or undefined if none comes within `ms`. */
  const nextWithin = (ms: number): Promise<Frame | undefined> =>
    new Promise((resolve) => {
      if (frames.length > 0) return resolve(frames.shift());
      const timer = setTimeout(() => {
        arrived = undefined;
        resolve(undefined);
      }, ms);
      arrived = () => {
        if (frames.length === 0) return;
        clearTimeout(timer);
        arrived = undefined;
        resolve(frames.shift());
      };
    });
  const next = async (): Promise<Frame> => {
    const frame = await nextWithin(20_000);
    if (frame === undefined) throw new Error("no frame came from the child");
    return frame;
  };
  const send = (message: Record<string, unknown>) => channel.write(encodeFrame(JSON.stringify(message)));
  const run = (executionId: string, workflow: string, input: unknown = {}) => {
    child.executionStarted();
    send({ type: "run", executionId, workflow, input, attempt: 1, steps: {}, tokens: {}, integrations: {} });
  };
  const stored = (frame: Frame, answer: Record<string, unknown> = {}) =>
    send({ type: "stepStored", executionId: frame.executionId, sequence: frame.sequence, ...answer });
  return { next, nextWithin, run, stored, send };
}

/** Long enough for a frame the child writes at once to arrive; nothing here waits on a rule of time. */
const quietMs = 400;

const runsHere = await sandboxSuitesRunHere();

describe.skipIf(!runsHere)("steps stored behind the workflow, under bubblewrap", () => {
  let server: Server;
  let requests = 0;
  let child: ReadySandboxChild;
  let url: string;

  beforeAll(async () => {
    server = createServer((_request, response) => {
      requests += 1;
      response.end("fetched");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    url = `http://127.0.0.1:${port}/`;
    child = await startReadySandboxChild("stored-behind", {
      bundle,
      egressAllow: [{ kind: "hostPort", host: "127.0.0.1", port }],
    });
  });
  afterAll(async () => {
    await child?.close();
    server?.close();
  });

  it("goes on from a small step before its answer, but sends nothing out until the steps before are stored", async () => {
    const channel = drive(child);
    channel.run("exe_fetches", "fetches", { url });
    const a = await channel.next();
    const b = await channel.next();
    expect([a, b]).toMatchObject([
      { name: "a", ahead: true },
      { name: "b", ahead: true },
    ]);
    expect(await channel.nextWithin(quietMs)).toBeUndefined();
    expect(requests).toBe(0);
    channel.stored(a);
    channel.stored(b);
    const c = await channel.next();
    expect(c).toMatchObject({ type: "step", name: "c", outcome: { ok: true, result: { value: "fetched" } } });
    expect(requests).toBe(1);
    expect(await channel.nextWithin(quietMs)).toBeUndefined();
    channel.stored(c);
    expect(await channel.next()).toMatchObject({
      type: "finished",
      outcome: { ok: true, result: { value: "fetched" } },
    });
  });

  it("reports the end, and asks the worker anything, only once the steps before are stored", async () => {
    const channel = drive(child);
    channel.run("exe_ends", "ends");
    const a = await channel.next();
    expect(await channel.nextWithin(quietMs)).toBeUndefined();
    channel.stored(a);
    expect(await channel.next()).toMatchObject({ type: "finished", outcome: { ok: true, result: { value: "done" } } });

    channel.run("exe_sends", "sends");
    const first = await channel.next();
    expect(first.name).toBe("a");
    expect(await channel.nextWithin(quietMs)).toBeUndefined();
    channel.stored(first);
    expect(await channel.next()).toMatchObject({ type: "sendEvent", step: "notify" });
  });

  it("goes ahead of no step once the worker tells it of a cancel", async () => {
    const channel = drive(child);
    channel.run("exe_cancellable", "cancellable", { url });
    const a = await channel.next();
    expect(a).toMatchObject({ name: "a", ahead: true });
    channel.send({ type: "cancelRequested", executionId: "exe_cancellable" });
    channel.stored(a);
    const b = await channel.next();
    expect(b).toMatchObject({ name: "b", outcome: { ok: true, result: { value: "fetched" } } });
    expect(b.ahead).toBeUndefined();
    expect(await channel.nextWithin(quietMs)).toBeUndefined();
    channel.stored(b, { stop: "cancelled" });
    expect(await channel.nextWithin(quietMs)).toBeUndefined();
  });

  it("sends no step of an abandoned execution ahead, which would hold the process's egress for good", async () => {
    const channel = drive(child);
    channel.run("exe_sleepy", "sleepy");
    channel.send({ type: "abandon", executionId: "exe_sleepy" });
    const slow = await channel.next();
    expect(slow.name).toBe("slow");
    expect(slow.ahead).toBeUndefined();
    channel.run("exe_after_abandon", "fetches", { url });
    const a = await channel.next();
    const b = await channel.next();
    channel.stored(a);
    channel.stored(b);
    expect(await channel.next()).toMatchObject({ name: "c", outcome: { ok: true, result: { value: "fetched" } } });
  });

  it("waits for the answer to a step whose result is over 64 KiB", async () => {
    const channel = drive(child);
    channel.run("exe_large", "large");
    const big = await channel.next();
    expect(big.name).toBe("big");
    expect(big.ahead).toBeUndefined();
    expect(await channel.nextWithin(quietMs)).toBeUndefined();
    channel.stored(big);
    expect((await channel.next()).name).toBe("after");
  });

  it("goes on from at most 64 steps of an execution before their answers: the next waits for its own", async () => {
    const channel = drive(child);
    channel.run("exe_many", "many");
    const steps: Frame[] = [];
    for (let index = 0; index < 65; index += 1) steps.push(await channel.next());
    expect(steps.map((step) => step.name)).toEqual(Array.from({ length: 65 }, (_, index) => `s${index}`));
    expect(await channel.nextWithin(quietMs)).toBeUndefined();
    channel.stored(steps[64] as Frame);
    expect((await channel.next()).name).toBe("s65");
    channel.send({ type: "abandon", executionId: "exe_many" });
  });
});

describe.skipIf(!runsHere)("steps without the egress forwarder (WEFT_SANDBOX=process)", () => {
  let child: ReadySandboxChild;

  beforeAll(async () => {
    child = await startReadySandboxChild("stored-first", { bundle, mode: "process" });
  });
  afterAll(async () => {
    await child?.close();
  });

  it("waits for each step's answer: nothing holds what the code sends out", async () => {
    const channel = drive(child);
    channel.run("exe_fetches", "fetches", { url: "http://127.0.0.1:9/" });
    const a = await channel.next();
    expect(a.name).toBe("a");
    expect(await channel.nextWithin(quietMs)).toBeUndefined();
    channel.stored(a);
    expect((await channel.next()).name).toBe("b");
  });
});

describe.skipIf(!runsHere)("a workflow of many small steps, run by a worker", () => {
  let engine: EngineHarness;
  const steps = 12_000;

  beforeAll(async () => {
    engine = await startEngineHarness();
    const source = `import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({ workflows: [workflow({ name: "many-steps", async run(_input: unknown, ctx) {
  for (let i = 0; i < ${steps}; i += 1) await ctx.step("s" + i, () => i);
  return "done";
} })] });`;
    await engine.deploy("prj_many_steps", source, { version: 1, workflows: [{ name: "many-steps" }] });
  });
  afterAll(async () => {
    await engine?.stop();
  });

  it("runs to its end, each of its steps stored once, 64 at most ahead of their answers at a time", async () => {
    const id = await engine.run("prj_many_steps", "many-steps", {});
    const done = await engine.waitFor(id, (row) => row.status !== "queued" && row.status !== "running", 60_000);
    expect(done).toMatchObject({ status: "succeeded", output: "done" });
    const [stored] = await engine.database.db
      .select({ n: count() })
      .from(executionSteps)
      .where(eq(executionSteps.executionId, id));
    expect(stored?.n).toBe(steps);
  });
});
