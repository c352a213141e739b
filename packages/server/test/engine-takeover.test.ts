import { type EngineStage, startEngineStage } from "@weft/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workerHeartbeats } from "../src/db/schema/index.ts";
import { claim, recordStep } from "../src/engine/execution-state/index.ts";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [workflow({ name: "resumable", async run(_input: unknown, ctx) {
    const first = await ctx.step("first", async () => "ran again after the crash");
    const second = await ctx.step("second", async () => "ran once");
    return { first, second };
  } })],
});
`;

const leaseMs = 30_000;
// The clock never moves in this file: a take-over that waited for a lease to lapse would never come.
let stage: EngineStage;

beforeAll(async () => {
  stage = await startEngineStage();
  await stage.deploy("prj_takeover", source, { version: 1, workflows: [{ name: "resumable" }] });
});
afterAll(async () => {
  await stage.stop();
});

/** An execution leased by `workerId` with its first step stored, as a worker leaves it when it dies mid-run. */
async function leftRunningBy(workerId: string): Promise<string> {
  const executionId = await stage.run("prj_takeover", "resumable", {});
  const now = stage.clock.now();
  const [claimed] = (await claim(stage.database.db, { workerId, now, leaseMs, limit: 1, workspaceSlots: 10 }))
    .executions;
  if (claimed?.id !== executionId) throw new Error("the execution was not claimed");
  await recordStep(
    stage.database.db,
    { executionId, workerId },
    {
      name: "first",
      attempt: 1,
      sequence: 1,
      startedAt: now,
      finishedAt: now,
      durationMs: 1,
      logs: [],
      span: {
        spanId: "0000000000000001",
        traceId: claimed.traceId,
        parentSpanId: claimed.attemptSpanId,
        projectId: "prj_takeover",
        workflow: "resumable",
      },
      outcome: { ok: true, result: { value: "stored before the crash" } },
    },
  );
  return executionId;
}

const startTakeoverWorker = () => stage.startWorker({ concurrency: 4, leaseMs });

const settled = (executionId: string) =>
  stage.waitFor(executionId, (row) => row.status !== "running" && row.status !== "queued", Number.POSITIVE_INFINITY);

describe("a worker that starts", () => {
  it("takes over at once the executions of a worker that is gone, resuming after the stored step", async () => {
    const executionId = await leftRunningBy("wrk_crashed");
    const startedAt = stage.clock.now();
    const worker = await startTakeoverWorker();
    try {
      const row = await settled(executionId);
      expect(row).toMatchObject({
        status: "succeeded",
        output: { first: "stored before the crash", second: "ran once" },
        attempt: 1,
      });
      expect(stage.clock.now()).toEqual(startedAt);
    } finally {
      await worker.stop();
    }
  });

  it("leaves alone, on PostgreSQL, the executions of a worker whose heartbeat is live", async () => {
    if (stage.database.kind === "embedded") return;
    const now = stage.clock.now();
    await stage.database.db
      .insert(workerHeartbeats)
      .values({ workerId: "wrk_alive", startedAt: now, expiresAt: new Date(now.getTime() + leaseMs) });
    const executionId = await leftRunningBy("wrk_alive");
    const worker = await startTakeoverWorker();
    try {
      await worker.poke();
      expect(await stage.execution(executionId)).toMatchObject({
        status: "running",
        leaseOwner: "wrk_alive",
      });
    } finally {
      await worker.stop();
    }
  });

  it("registers with a heartbeat row, renewed with its leases and removed when it stops cleanly", async () => {
    const worker = await startTakeoverWorker();
    const [row] = await stage.database.db
      .select()
      .from(workerHeartbeats)
      .where(eq(workerHeartbeats.workerId, worker.id));
    expect(row?.expiresAt).toEqual(new Date(stage.clock.now().getTime() + leaseMs));
    await worker.stop();
    const after = await stage.database.db
      .select()
      .from(workerHeartbeats)
      .where(eq(workerHeartbeats.workerId, worker.id));
    expect(after).toEqual([]);
  });
});
