import { type EngineStage, startEngineStage } from "@weft/testing";
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executionSteps, executions } from "../src/db/schema/index.ts";
import { claim, recordSteps, type StepRecord } from "../src/engine/execution-state/index.ts";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [workflow({ name: "steps", async run(_input: unknown, ctx) {
    return ctx.step("only", async () => "ran");
  } })],
});
`;

const leaseMs = 30_000;
// No worker runs in this file: the executions stay where the statements put them.
let stage: EngineStage;

beforeAll(async () => {
  stage = await startEngineStage();
  await stage.deploy("prj_batched", source, { version: 1, workflows: [{ name: "steps" }] });
});
afterAll(async () => {
  await stage.stop();
});

/** A new execution claimed by `workerId`, with the span ids a step of it needs. */
async function claimedBy(workerId: string): Promise<{ id: string; traceId: string; attemptSpanId: string }> {
  const executionId = await stage.run("prj_batched", "steps", {});
  const [claimed] = (
    await claim(stage.database.db, { workerId, now: stage.clock.now(), leaseMs, limit: 1, workspaceSlots: 10 })
  ).executions;
  if (claimed?.id !== executionId) throw new Error("the execution was not claimed");
  return claimed;
}

function step(
  claimed: { traceId: string; attemptSpanId: string },
  spanId: string,
  outcome: StepRecord["outcome"],
): StepRecord {
  const now = stage.clock.now();
  return {
    name: "only",
    attempt: 1,
    sequence: 1,
    startedAt: now,
    finishedAt: now,
    durationMs: 1,
    logs: [],
    span: {
      spanId,
      traceId: claimed.traceId,
      parentSpanId: claimed.attemptSpanId,
      projectId: "prj_batched",
      workflow: "steps",
    },
    outcome,
  };
}

describe("steps of several executions recorded in one statement", () => {
  it("answers each in its order: stored when the execution is the worker's, refused when it is another's, nothing stored for a throw", async () => {
    const stored = await claimedBy("wrk_batch");
    const anothers = await claimedBy("wrk_other");
    const threw = await claimedBy("wrk_batch");
    await stage.database.db
      .update(executions)
      .set({ cancelRequestedAt: stage.clock.now() })
      .where(eq(executions.id, threw.id));

    const answers = await recordSteps(stage.database.db, "wrk_batch", [
      { executionId: stored.id, step: step(stored, "0000000000000001", { ok: true, result: { value: "kept" } }) },
      { executionId: anothers.id, step: step(anothers, "0000000000000002", { ok: true, result: { value: "lost" } }) },
      {
        executionId: threw.id,
        step: step(threw, "0000000000000003", {
          ok: false,
          error: { name: "Error", message: "the step threw" },
        }),
      },
    ]);

    expect(answers).toEqual([
      { outcome: "taken", cancelRequested: false },
      { outcome: "refused" },
      { outcome: "taken", cancelRequested: true },
    ]);
    const rows = await stage.database.db
      .select({ executionId: executionSteps.executionId, result: executionSteps.result })
      .from(executionSteps)
      .where(inArray(executionSteps.executionId, [stored.id, anothers.id, threw.id]));
    expect(rows).toEqual([{ executionId: stored.id, result: { value: "kept" } }]);
  });
});
