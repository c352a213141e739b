import { type EngineHarness, enqueueTestExecution, startEngineHarness } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/**
 * A run never started within its time to live ends `expired` when its time is up, by the workers'
 * poll, whether or not a slot or its workflow's concurrency limit would let a claim reach it
 * (on PGlite, and on PostgreSQL with WEFT_TEST_DATABASE_URL).
 */

let engine: EngineHarness;
let deploymentId: string;
const project = "prj_run_expiry";

const source = `
import { defineConfig, workflow } from "@weft/sdk";

export default defineConfig({
  workflows: [
    workflow({
      name: "hold",
      async run(_input: unknown, ctx) {
        await ctx.step("hold", () => new Promise((resolve) => setTimeout(resolve, 120_000)));
        return "held";
      },
    }),
    workflow({
      name: "quick",
      async run(input: { n: number }, ctx) {
        return ctx.step("quick", () => input.n);
      },
    }),
    workflow({
      name: "one-at-a-time",
      concurrency: 1,
      async run(_input: unknown, ctx) {
        await ctx.step("hold", () => new Promise((resolve) => setTimeout(resolve, 120_000)));
        return "held";
      },
    }),
  ],
});
`;

const manifest = {
  version: 1,
  workflows: [{ name: "hold" }, { name: "quick" }, { name: "one-at-a-time", concurrency: 1 }],
};

beforeAll(async () => {
  // One slot, which the held run keeps for the whole file.
  engine = await startEngineHarness({ concurrency: 1 });
  deploymentId = await engine.deploy(project, source, manifest);
});

afterAll(async () => {
  await engine.stop();
});

function runWithTtl(workflow: string, input: unknown, ttlMs: number): Promise<string> {
  return enqueueTestExecution(
    engine.database.db,
    { clock: engine.clock, ids: engine.ids },
    { projectId: project, deploymentId, workflow, input, ttlMs },
  );
}

describe("a run past its time to live", () => {
  it("ends expired while every slot is taken, and one within it stays queued", async () => {
    const held = await engine.run(project, "hold", {});
    await engine.waitFor(held, (row) => row.status === "running");
    const late = await runWithTtl("quick", { n: 1 }, 10_000);
    const later = await runWithTtl("quick", { n: 2 }, 60_000);
    engine.clock.advance(10_001);
    const expired = await engine.waitFor(late, (row) => row.status === "expired");
    expect(expired.error).toEqual({
      name: "ExpiredError",
      message: "the run was not started within its time to live (ttl)",
    });
    expect(expired.finishedAt).not.toBeNull();
    await engine.worker.poke();
    expect((await engine.execution(later)).status).toBe("queued");
    expect((await engine.execution(held)).status).toBe("running");
  });

  it("ends expired a run of a concurrency-limited workflow no claim reaches", async () => {
    const first = await runWithTtl("one-at-a-time", {}, 600_000);
    const second = await runWithTtl("one-at-a-time", {}, 5_000);
    engine.clock.advance(5_001);
    await engine.waitFor(second, (row) => row.status === "expired");
    // The first is still within its time: queued behind the held run's slot.
    expect((await engine.execution(first)).status).toBe("queued");
  });
});
