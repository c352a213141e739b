import { type EngineHarness, startEngineHarness } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wakeupStepMs } from "../src/engine/due-wakeups.ts";
import { createManualTimers } from "../src/shared/timers.ts";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "nap",
      async run(_input: unknown, ctx) {
        await ctx.sleep("nap", "5s");
        return "rested";
      },
    }),
    workflow({
      name: "second-time-lucky",
      retries: { maxAttempts: 2, minDelay: "5s", maxDelay: "5s" },
      async run(_input: unknown, ctx) {
        if (ctx.execution.attempt < 2) throw new Error("not yet");
        return "lucky";
      },
    }),
    workflow({
      name: "unanswered",
      async run(_input: unknown, ctx) {
        return (await ctx.waitForToken("approval", { timeout: "5s" })).ok;
      },
    }),
  ],
});
`;

const manifest = {
  version: 1,
  workflows: [
    { name: "nap" },
    { name: "second-time-lucky", retries: { maxAttempts: 2, minDelayMs: 5_000, maxDelayMs: 5_000 } },
    { name: "unanswered" },
  ],
};

const timers = createManualTimers();
let engine: EngineHarness;
beforeAll(async () => {
  // No poll within the test: only the worker's own wake-up can resume what it let go of.
  engine = await startEngineHarness({ pollIntervalMs: 3_600_000 }, { timers });
  await engine.deploy("prj_wakeups", source, manifest);
});
afterAll(async () => {
  await engine.stop();
});

describe("an execution the worker let go of until a moment", () => {
  it.each([
    ["a sleep", "nap", "sleeping", "rested"],
    ["a delayed retry", "second-time-lucky", "queued", "lucky"],
    ["a wait whose token times out", "unanswered", "waiting", false],
  ])("runs again when %s falls due, without waiting for the poll", async (_case, workflow, letGo, output) => {
    const id = await engine.run("prj_wakeups", workflow, {});
    const now = engine.clock.now().getTime();
    const waiting = await engine.waitFor(
      id,
      (row) => row.status === letGo && row.leaseOwner === null && row.runAt.getTime() > now,
    );
    expect(waiting.runAt.getTime()).toBe(now + 5_000);
    engine.clock.advance(5_000 + wakeupStepMs);
    // The worker arms its wake-up once the row it let go of is committed, which this test may read first.
    const done = await engine.waitFor(id, (row) => {
      timers.fireAll();
      return row.status === "succeeded";
    });
    expect(done.output).toEqual(output);
  });
});
