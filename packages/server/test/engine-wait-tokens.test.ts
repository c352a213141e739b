import {
  attemptSpanNames,
  type EngineHarness,
  resumeOnAnotherWorker,
  startEngineHarness,
  storedStepValue,
  waitingWithoutWorker,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { completeWaitToken } from "../src/wait-tokens/complete-wait-token.ts";

/**
 * A waiting execution belongs to no worker: the one that ran it may go away, and another resumes
 * it once its token is completed, replaying what was stored (on either database; the PostgreSQL
 * crash test kills a worker process outright, see engine-crash-recovery.test.ts).
 */

let engine: EngineHarness;

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
  await engine.stop();
});

describe("a waiting execution whose worker goes away", () => {
  it("is resumed by another worker once its token is completed, running no step twice", async () => {
    const executionId = await waitingWithoutWorker(engine, "prj_wait", "approved", {});

    const tokenId = await storedStepValue(engine, executionId, "ask");
    const before = await storedStepValue(engine, executionId, "before");
    if (typeof tokenId !== "string") throw new Error("no token id stored");
    expect(await completeWaitToken(engine.database.db, engine, { tokenId, data: { approved: true } })).toEqual({
      ok: true,
      value: { executionId },
    });

    const done = await resumeOnAnotherWorker(engine, executionId);
    expect(done.status).toBe("succeeded");
    const after = await storedStepValue(engine, executionId, "after");
    // A step run twice would hand the workflow a new random number, not the stored one.
    expect(done.output).toEqual({ before, answer: { ok: true, data: { approved: true } }, tokenId, after });
    expect(await attemptSpanNames(engine.database.db, executionId)).toEqual(["attempt 1", "attempt 1 (resumed)"]);
  });
});
