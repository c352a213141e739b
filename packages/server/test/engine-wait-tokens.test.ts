import { attemptSpanNames, type EngineHarness, startEngineHarness, startTestWorker } from "@weft/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executionSteps } from "../src/db/schema/index.ts";
import type { Worker } from "../src/engine/worker.ts";
import { completeWaitToken } from "../src/wait-tokens/complete-wait-token.ts";

/**
 * A waiting execution belongs to no worker: the one that ran it may go away, and another resumes
 * it once its token is completed, replaying what was stored (on either database; the PostgreSQL
 * crash test kills a worker process outright, see engine-crash-recovery.test.ts).
 */

let engine: EngineHarness;
let second: Worker | undefined;

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "approved",
      async run(_input: unknown, ctx) {
        const before = await ctx.step("before", () => Math.random());
        const token = await ctx.createToken("approval", { timeout: "1d" });
        await ctx.step("ask", () => token.id);
        const answer = await ctx.waitForToken("approval");
        return { before, answer, tokenId: token.id, after: await ctx.step("after", () => Math.random()) };
      },
    }),
  ],
});
`;

beforeAll(async () => {
  engine = await startEngineHarness();
  await engine.deploy("prj_wait", source, { version: 1, workflows: [{ name: "approved" }] });
});

afterAll(async () => {
  await second?.stop();
  await engine.stop();
});

describe("a waiting execution whose worker goes away", () => {
  it("is resumed by another worker once its token is completed, running no step twice", async () => {
    const executionId = await engine.run("prj_wait", "approved", {});
    await engine.waitFor(executionId, (row) => row.status === "waiting");
    await engine.worker.stop();

    const stored = await engine.database.db
      .select()
      .from(executionSteps)
      .where(eq(executionSteps.executionId, executionId));
    const tokenId = stored.find((step) => step.name === "ask")?.result.value;
    const before = stored.find((step) => step.name === "before")?.result.value;
    if (typeof tokenId !== "string") throw new Error("no token id stored");
    expect(await completeWaitToken(engine.database.db, engine, { tokenId, data: { approved: true } })).toEqual({
      ok: true,
      value: { executionId },
    });

    second = await startTestWorker(
      { database: engine.database, clock: engine.clock },
      { concurrency: 4, dataDir: engine.dataDir, sandbox: engine.isolation },
    );
    const done = await engine.waitFor(executionId, (row) => row.status === "succeeded" || row.status === "failed");
    expect(done.status).toBe("succeeded");
    const after = (
      await engine.database.db.select().from(executionSteps).where(eq(executionSteps.executionId, executionId))
    ).find((step) => step.name === "after")?.result.value;
    // A step run twice would hand the workflow a new random number, not the stored one.
    expect(done.output).toEqual({ before, answer: { ok: true, data: { approved: true } }, tokenId, after });
    expect(await attemptSpanNames(engine.database.db, executionId)).toEqual(["attempt 1", "attempt 1 (resumed)"]);
  });
});
