import { type EngineHarness, gatedConfigPreamble, openGate, startEngineHarness } from "@weft/testing";
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executionSteps, executions } from "../src/db/schema/index.ts";
import { activateDeployment } from "../src/deployments/read-deployments.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";
import { cancelExecution } from "../src/workflows/cancel-execution.ts";

let engine: EngineHarness;
let deploymentId: string;

const source = `${gatedConfigPreamble}
import { defineConfig, workflow } from "@weft/sdk";

export default defineConfig({
  workflows: [
    workflow({
      name: "gated",
      retries: { maxAttempts: 1 },
      async run(_input: unknown, ctx) {
        await ctx.step("first", () => "one");
        await ctx.step("wait", () => gate("cancel"));
        await ctx.step("after", () => "never");
        return "finished";
      },
    }),
    workflow({
      name: "solo",
      concurrency: 1,
      async run(input: { i: number }, ctx) {
        await ctx.step("hold", () => gate("solo"));
        return input.i;
      },
    }),
    workflow({
      name: "slowpoke",
      timeout: "1s",
      retries: { maxAttempts: 1 },
      async run(_input: unknown, ctx) {
        await ctx.step("started", () => true);
        await ctx.step("wait", () => gate("never"));
      },
    }),
    workflow({
      name: "napper",
      async run(_input: unknown, ctx) {
        await ctx.sleep("long", "1d");
      },
    }),
  ],
});
`;

const manifest = {
  version: 1,
  workflows: [
    { name: "gated", retries: { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 } },
    { name: "solo", concurrency: 1 },
    { name: "slowpoke", timeoutMs: 1000, retries: { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 } },
    { name: "napper" },
  ],
};

async function storedSteps(id: string): Promise<string[]> {
  const rows = await engine.database.db
    .select({ name: executionSteps.name })
    .from(executionSteps)
    .where(eq(executionSteps.executionId, id))
    .orderBy(executionSteps.sequence);
  return rows.map((row) => row.name);
}

async function waitForStep(id: string, name: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await storedSteps(id)).includes(name)) {
    if (Date.now() > deadline) throw new Error(`step ${name} of ${id} was never stored`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  engine = await startEngineHarness();
  deploymentId = await engine.deploy("prj_ctl", source, manifest);
});
afterAll(async () => {
  await engine.stop();
});

describe("cancellation", () => {
  it("stops a running execution at its next step boundary", async () => {
    const id = await engine.run("prj_ctl", "gated", {});
    await waitForStep(id, "first");
    expect(valueOrThrow(await cancelExecution(engine.database.db, engine, { executionId: id }))).toEqual({
      status: "running",
    });
    openGate(engine.dataDir, deploymentId, "cancel");
    const cancelled = await engine.waitFor(id, (row) => row.status === "cancelled");
    expect(cancelled.finishedAt).not.toBeNull();
    expect(await storedSteps(id)).toEqual(["first", "wait"]);
  });

  it("cancels a sleeping execution at once and refuses to cancel a finished one", async () => {
    const id = await engine.run("prj_ctl", "napper", {});
    await engine.waitFor(id, (row) => row.status === "sleeping");
    expect(valueOrThrow(await cancelExecution(engine.database.db, engine, { executionId: id }))).toEqual({
      status: "cancelled",
    });
    engine.clock.advance(86_400_000);
    await engine.worker.poke();
    const row = await engine.execution(id);
    expect(row.status).toBe("cancelled");
    expect(await cancelExecution(engine.database.db, engine, { executionId: id })).toMatchObject({
      ok: false,
      failure: { kind: "conflict" },
    });
    expect((await engine.execution(id)).finishedAt).toEqual(row.finishedAt);
  });
});

describe("concurrency", () => {
  it("runs at most `concurrency` executions of a workflow at once", async () => {
    const ids = [
      await engine.run("prj_ctl", "solo", { i: 1 }),
      await engine.run("prj_ctl", "solo", { i: 2 }),
      await engine.run("prj_ctl", "solo", { i: 3 }),
    ];
    await engine.worker.poke();
    await engine.worker.poke();
    const statuses = async () =>
      engine.database.db
        .select({ status: executions.status, n: count() })
        .from(executions)
        .where(and(eq(executions.projectId, "prj_ctl"), eq(executions.workflow, "solo")))
        .groupBy(executions.status);
    expect(await statuses()).toEqual(
      expect.arrayContaining([
        { status: "running", n: 1 },
        { status: "queued", n: 2 },
      ]),
    );
    openGate(engine.dataDir, deploymentId, "solo");
    let succeeded = 0;
    const deadline = Date.now() + 20_000;
    while (succeeded < 3) {
      const counts = await statuses();
      expect(counts.find((entry) => entry.status === "running")?.n ?? 0).toBeLessThanOrEqual(1);
      succeeded = counts.find((entry) => entry.status === "succeeded")?.n ?? 0;
      if (Date.now() > deadline) throw new Error(`not all solo executions finished: ${JSON.stringify(counts)}`);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const outputs = await Promise.all(ids.map(async (id) => (await engine.execution(id)).output));
    expect(outputs).toEqual([1, 2, 3]);
  });
});

describe("timeouts", () => {
  it("fails an attempt that overruns the workflow's timeout", async () => {
    const id = await engine.run("prj_ctl", "slowpoke", {});
    await waitForStep(id, "started");
    engine.clock.advance(1001);
    const failed = await engine.waitFor(id, (row) => row.status === "failed");
    expect(failed.error).toMatchObject({ name: "TimeoutError" });
    expect(failed.error?.message).toContain("1000 ms");
  });
});

describe("rollback", () => {
  const version = (n: number) => `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [workflow({ name: "ver", async run(_input: unknown, ctx) { await ctx.sleep("pause", "1m"); return ${n}; } })],
});`;
  const versionManifest = { version: 1, workflows: [{ name: "ver" }] };

  it("runs new executions on the re-activated older code, and each execution on its own deployment", async () => {
    const first = await engine.deploy("prj_roll", version(1), versionManifest);
    await engine.deploy("prj_roll", version(2), versionManifest);
    const onSecond = await engine.run("prj_roll", "ver", {});
    await engine.waitFor(onSecond, (row) => row.status === "sleeping");
    valueOrThrow(await activateDeployment(engine.database.db, engine, { projectId: "prj_roll", deploymentId: first }));
    const onFirst = await engine.run("prj_roll", "ver", {});
    await engine.waitFor(onFirst, (row) => row.status === "sleeping");
    engine.clock.advance(60_000);
    await engine.worker.poke();
    expect((await engine.waitFor(onSecond, (row) => row.status === "succeeded")).output).toBe(2);
    expect((await engine.waitFor(onFirst, (row) => row.status === "succeeded")).output).toBe(1);
  });
});
