import {
  attackerHelpers,
  callRpc,
  capturedLogger,
  type DeployedTenant,
  deployTenant,
  runToEnd,
  sandboxSuitesRunHere,
  startExecution,
  startTestPlatform,
  waitForEnd,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  maxChannelFrameBytes,
  maxChannelFramesPerSecond,
  maxIdleSecondsOverChannelBudget,
} from "../src/engine/limits.ts";
import { reduceMemory } from "../src/shared/reduce-memory.ts";

/**
 * Workflow code that attacks what crosses the sandbox's boundary into the worker: its channel, its
 * output, its filesystem. Each attack must end the attacking execution with an error naming what
 * it broke, or be held to its budget until the attempt's timeout, while the platform (in this very
 * process) keeps serving another tenant.
 */
const attacker = `
import { randomBytes } from "node:crypto";
import { defineConfig, workflow } from "@weft/sdk";

${attackerHelpers}
export default defineConfig({
  workflows: [
    workflow({ name: "ipc-line", async run() { write(Buffer.from("}\\n")); await forever(); } }),
    workflow({ name: "no-newline", async run() {
      const piece = Buffer.alloc(1024 * 1024, "x");
      for (let i = 0; i < 600; i += 1) write(piece);
      await forever();
    } }),
    workflow({ name: "garbage", async run() {
      const bytes = randomBytes(64 * 1024);
      // Not the frame marker (one time in 256): bytes after it would be read as a frame's length.
      if (bytes[0] === 0xf7) bytes[0] = 0;
      write(bytes);
      await forever();
    } }),
    workflow({ name: "frame-over-cap", async run(input) {
      write(header(input.length));
      write(Buffer.alloc(1024 * 1024, "x"));
      await forever();
    } }),
    workflow({ name: "tiny-frames", timeout: "30s", async run(input, ctx) {
      await ctx.step("started", () => 1);
      const body = Buffer.from(JSON.stringify({ type: "ready" }));
      const frame = Buffer.concat([header(body.length), body]);
      const batch = Buffer.concat(Array.from({ length: 1000 }, () => frame));
      for (let i = 0; i < 100; i += 1) write(batch);
      await forever();
    } }),
    workflow({ name: "flood-after-return", async run() {
      const body = Buffer.from(JSON.stringify({ type: "ready" }));
      const frame = Buffer.concat([header(body.length), body]);
      const batch = Buffer.concat(Array.from({ length: 1000 }, () => frame));
      setTimeout(() => { for (;;) write(batch); }, 100);
      return "returned";
    } }),
    workflow({ name: "noop", async run() { return "served"; } }),
    workflow({ name: "stdout-flood", async run() {
      const line = "x".repeat(64 * 1024) + "\\n";
      for (;;) await new Promise((resolve) => process.stdout.write(line, resolve));
    } }),
    workflow({ name: "fill-root", async run(input, ctx) { return ctx.step("fill", () => fill("/big.db")); } }),
    workflow({ name: "fill-tmp", async run(input, ctx) { return ctx.step("fill", () => fill("/tmp/big.db")); } }),
    workflow({ name: "spin", timeout: "30s", async run(input, ctx) { await ctx.step("spin", () => { for (;;) {} }); } }),
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
/**
 * What the platform's JavaScript holds alive: its heap and its buffers after a full collection,
 * where a flood it kept would show. Not the process's resident memory, which V8's compilation of
 * PostgreSQL's parser grows by hundreds of MB for some seconds after a database opens in a
 * process; not `heapTotal`, which grows by up to 128 MB as the young generation does under any
 * allocation; not V8's `external`, which counts the embedded database's WebAssembly memory.
 */
function heldBytes(): number {
  reduceMemory();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

describe.skipIf(!runHere)("hostile tenant: what crosses the sandbox's boundary", () => {
  let attack: DeployedTenant;
  let victim: DeployedTenant;
  const logs = capturedLogger("warn");

  beforeAll(async () => {
    const weft = await startTestPlatform({
      configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
      logger: logs.logger,
    });
    attack = await deployTenant(weft, "mallory@example.com", {
      source: attacker,
      workflows: [
        "ipc-line",
        "no-newline",
        "garbage",
        "frame-over-cap",
        "tiny-frames",
        "flood-after-return",
        "noop",
        "stdout-flood",
        "fill-root",
        "fill-tmp",
        "spin",
      ],
      timeoutsMs: { spin: 30_000, "tiny-frames": 30_000 },
    });
    victim = await deployTenant(weft, "bob@example.com", { source: neighbour, workflows: ["square"] });
  });
  afterAll(async () => {
    await attack?.weft.stop();
  });

  /** The platform still serves the other tenant: its API, and an execution end to end. */
  async function expectNeighbourServed(): Promise<void> {
    const health = await fetch(`${victim.weft.url}/healthz`);
    expect(health.status).toBe(200);
    const listed = await callRpc(victim.weft.url, "projects.list", {}, { token: victim.owner.credential });
    expect(listed.status).toBe(200);
    const squared = await runToEnd(victim, "square", { n: 7 });
    expect(squared).toMatchObject({ status: "succeeded", output: 49 });
  }

  it.each([
    ["ipc-line", {}, /broke its channel to the worker: it sent bytes that are not a frame \(7d 0a\)/],
    ["no-newline", {}, /broke its channel to the worker: it sent bytes that are not a frame \(78 78 78/],
    ["garbage", {}, /broke its channel to the worker: it sent bytes that are not a frame/],
    [
      "frame-over-cap",
      { length: maxChannelFrameBytes + 1 },
      new RegExp(`it sent a frame of ${maxChannelFrameBytes + 1} bytes, over the limit of ${maxChannelFrameBytes}`),
    ],
  ])("%s ends only the attacker's execution, naming the violation", async (workflow, input, message) => {
    const heldBefore = heldBytes();
    const ended = await runToEnd(attack, workflow, input);
    expect(ended.status).toBe("failed");
    expect(ended.error).toMatchObject({ name: "SandboxProtocolError", message: expect.stringMatching(message) });
    // What the child wrote was refused as it came, not held: 600 MiB once grew the platform by as much.
    expect(heldBytes() - heldBefore).toBeLessThan(64 * MiB);
    await expectNeighbourServed();
  });

  it("reads a flood of tiny frames without ending the child, serving the other tenant, until the attempt's timeout", async () => {
    const heldBefore = heldBytes();
    const executionId = await startExecution(attack, "tiny-frames", {});
    // Past the first step the flood is under way: the deadline must end it, not keep it from starting.
    await vi.waitFor(
      async () => {
        const { json } = await callRpc(
          attack.weft.url,
          "workflows.getExecution",
          { executionId },
          { token: attack.owner.credential },
        );
        expect(json).toMatchObject({ steps: [{ name: "started" }] });
      },
      { timeout: 20_000, interval: 25 },
    );
    await expectNeighbourServed();
    expect(heldBytes() - heldBefore).toBeLessThan(64 * MiB);
    attack.weft.clock.advance(31_000);
    const ended = await waitForEnd(attack, executionId);
    expect(ended).toMatchObject({
      status: "failed",
      error: { name: "TimeoutError", message: expect.stringMatching(/the attempt exceeded .* of 30000 ms/) },
    });
    await expectNeighbourServed();
  });

  it("ends a child that floods its channel past the budget for seconds in a row while it runs no execution", async () => {
    const returned = await runToEnd(attack, "flood-after-return", {});
    expect(returned).toMatchObject({ status: "succeeded", output: "returned" });
    await vi.waitFor(
      () =>
        expect(logs.lines).toContainEqual(
          expect.objectContaining({
            msg: "a workflow process broke its channel and was stopped",
            problem: `more than ${maxChannelFramesPerSecond} messages a second for ${maxIdleSecondsOverChannelBudget} s in a row while it ran no execution`,
          }),
        ),
      { timeout: 20_000 },
    );
    expect(await runToEnd(attack, "noop", {})).toMatchObject({ status: "succeeded", output: "served" });
    await expectNeighbourServed();
  });

  it("ends a child that floods its stdout, reading it at a bounded rate meanwhile", async () => {
    const ended = await runToEnd(attack, "stdout-flood", {}, 30_000);
    expect(ended.status).toBe("failed");
    expect(ended.error).toMatchObject({
      name: "OutputFloodError",
      message: expect.stringMatching(/wrote more than 256 KiB a second to its stdout for 5 s in a row/),
    });
    await expectNeighbourServed();
  });

  it("cannot write to the sandbox's root, and fills at most the capped /tmp", async () => {
    const heldBefore = heldBytes();
    const root = await runToEnd(attack, "fill-root", {});
    expect(root.status).toBe("failed");
    expect(root.error?.message).toMatch(/unable to open database file|readonly|read-only/i);
    const tmp = await runToEnd(attack, "fill-tmp", {});
    expect(tmp.status).toBe("failed");
    expect(tmp.error?.message).toMatch(/database or disk is full/);
    expect(heldBytes() - heldBefore).toBeLessThan(64 * MiB);
    await expectNeighbourServed();
  });

  it("serves another tenant while 10 executions busy-loop, and ends each at its timeout", async () => {
    const spinning = await Promise.all(Array.from({ length: 10 }, () => startExecution(attack, "spin", {})));
    await expectNeighbourServed();
    // The timeout is read from the platform's clock, which this test moves past it.
    attack.weft.clock.advance(31_000);
    for (const executionId of spinning) {
      const ended = await waitForEnd(attack, executionId);
      attack.weft.clock.advance(31_000);
      expect(ended).toMatchObject({
        status: "failed",
        error: { name: "TimeoutError", message: expect.stringMatching(/the attempt exceeded .* of 30000 ms/) },
      });
    }
    await expectNeighbourServed();
  });
});
