import { type EngineHarness, startEngineHarness } from "@weft/testing";
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executionSteps, executions, spans } from "../src/db/schema/index.ts";
import { enqueueExecution } from "../src/engine/enqueue-execution.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";

let engine: EngineHarness;
let deploymentId: string;

const source = `
import { defineConfig, workflow } from "@weft/sdk";

const journey = workflow({
  name: "journey",
  retries: { maxAttempts: 3, minDelay: "1s", maxDelay: "2s" },
  async run(input: { n: number }, ctx) {
    const doubled = await ctx.step("double", async () => input.n * 2);
    ctx.log.info("doubled", { doubled });
    await ctx.sleep("nap", "1h");
    const flaky = await ctx.step("flaky", async () => {
      if (ctx.execution.attempt < 2) throw new Error("transient trouble");
      return doubled + 1;
    });
    return { doubled, flaky, attempt: ctx.execution.attempt };
  },
});

const doomed = workflow({
  name: "doomed",
  retries: { maxAttempts: 2, minDelay: "1s", maxDelay: "1s" },
  async run(_input: unknown, ctx) {
    await ctx.step("boom", () => {
      throw new TypeError("kaput");
    });
  },
});

const quick = workflow({
  name: "quick",
  async run(input: { n: number }) {
    return { n: input.n };
  },
});

export default defineConfig({ workflows: [journey, doomed, quick] });
`;

const manifest = {
  version: 1,
  workflows: [
    { name: "journey", retries: { maxAttempts: 3, minDelayMs: 1000, maxDelayMs: 2000 } },
    { name: "doomed", retries: { maxAttempts: 2, minDelayMs: 1000, maxDelayMs: 1000 } },
    { name: "quick" },
  ],
};

beforeAll(async () => {
  engine = await startEngineHarness();
  deploymentId = await engine.deploy("prj_engine", source, manifest);
});
afterAll(async () => {
  await engine.stop();
});

describe("the workflow engine", () => {
  it("runs steps, sleeps durably and retries to success, never re-running a stored step", async () => {
    const id = await engine.run("prj_engine", "journey", { n: 20 });
    const sleeping = await engine.waitFor(id, (row) => row.status === "sleeping");
    expect(sleeping.runAt.getTime()).toBe(engine.clock.now().getTime() + 3_600_000);
    expect(sleeping.leaseOwner).toBeNull();

    engine.clock.advance(3_600_000);
    await engine.worker.poke();
    const retrying = await engine.waitFor(id, (row) => row.status === "queued" && row.attempt === 2);
    expect(retrying.error).toMatchObject({ name: "Error", message: "transient trouble" });
    const delay = retrying.runAt.getTime() - engine.clock.now().getTime();
    expect(delay).toBeGreaterThanOrEqual(1000);
    expect(delay).toBeLessThanOrEqual(2000);

    engine.clock.advance(2000);
    await engine.worker.poke();
    const done = await engine.waitFor(id, (row) => row.status === "succeeded");
    expect(done.output).toEqual({ doubled: 40, flaky: 41, attempt: 2 });
    expect(done.attempt).toBe(2);

    const steps = await engine.database.db
      .select()
      .from(executionSteps)
      .where(eq(executionSteps.executionId, id))
      .orderBy(executionSteps.startedAt);
    expect(steps.map((step) => [step.name, step.kind, step.attempt])).toEqual([
      ["double", "step", 1],
      ["nap", "sleep", 1],
      ["flaky", "step", 2],
    ]);
    expect(steps[0]?.result).toEqual({ value: 40 });
    const doubleSpans = await engine.database.db
      .select()
      .from(spans)
      .where(and(eq(spans.executionId, id), eq(spans.name, "step double")));
    expect(doubleSpans).toHaveLength(1);
    expect(done.logs.map((entry) => entry.message)).toContain("doubled");
  });

  it("retries a throwing step with backoff, then fails with the error and its stack", async () => {
    const id = await engine.run("prj_engine", "doomed", {});
    const retrying = await engine.waitFor(id, (row) => row.status === "queued" && row.attempt === 2);
    expect(retrying.runAt.getTime()).toBe(engine.clock.now().getTime() + 1000);

    engine.clock.advance(999);
    await engine.worker.poke();
    expect((await engine.execution(id)).status).toBe("queued");

    engine.clock.advance(1);
    await engine.worker.poke();
    const failed = await engine.waitFor(id, (row) => row.status === "failed");
    expect(failed.error).toMatchObject({ name: "TypeError", message: "kaput" });
    expect(failed.error?.stack).toContain("kaput");
    expect(failed.finishedAt).not.toBeNull();
  });

  it("ends the attempts that finish together in shared statements, each with its own output", async () => {
    const count = 16;
    // Committed at once, so that the worker claims them together.
    const ids = await engine.database.db.transaction(async (tx) => {
      const created: string[] = [];
      for (let n = 0; n < count; n += 1)
        created.push(
          valueOrThrow(
            await enqueueExecution(
              tx,
              { clock: engine.clock, ids: engine.ids },
              { projectId: "prj_engine", deploymentId, workflow: "quick", input: { n }, trigger: { kind: "api" } },
            ),
          ).executionId,
        );
      return created;
    });
    await engine.worker.poke();
    for (const [n, id] of ids.entries())
      expect((await engine.waitFor(id, (row) => row.status === "succeeded")).output).toEqual({ n });
    // A row's xmin is the transaction that last wrote it: its end.
    const [ends] = await engine.database.db
      .select({ n: sql<number>`count(distinct xmin::text)::int` })
      .from(executions)
      .where(inArray(executions.id, ids));
    expect(ends?.n).toBeLessThan(count);
  });
});
