import { type EngineStage, type ExecutionRow, startEngineStage } from "@weft/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executionSteps, spans } from "../src/db/schema/index.ts";
import { workerCrashError } from "../src/engine/crash-attempts.ts";
import { type ClaimedExecution, claim } from "../src/engine/execution-state/index.ts";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({ name: "stepped", async run(_input: unknown, ctx) {
      return ctx.step("ran", async () => "ran");
    } }),
    workflow({ name: "flaky", async run(_input: unknown, ctx) {
      const attempt = await ctx.step("attempt " + ctx.execution.attempt, async () => ctx.execution.attempt);
      if (attempt === 1) throw new Error("the first attempt fails");
      return attempt;
    } }),
    workflow({ name: "lingering", async run(_input: unknown, ctx) {
      return ctx.step("linger", () => new Promise((resolve) => setTimeout(resolve, 600_000)));
    } }),
  ],
});
`;
const retries = { maxAttempts: 3, minDelayMs: 0, maxDelayMs: 0 };
const manifest = {
  version: 1,
  workflows: [
    { name: "stepped", retries },
    { name: "flaky", retries },
    { name: "lingering", retries },
  ],
};

const leaseMs = 30_000;
const crashAttempts = 3;
let stage: EngineStage;

beforeAll(async () => {
  stage = await startEngineStage();
  await stage.deploy("prj_crashing", source, manifest, { owner: "crashing@tests.weft.invalid" });
  await stage.deploy("prj_bystander", source, manifest, { owner: "bystander@tests.weft.invalid" });
});
afterAll(async () => {
  await stage.stop();
});

const enqueue = (projectId: string, workflow: string) => stage.run(projectId, workflow, {});

/** A worker that leases one execution and then dies: nothing more is written for it, and its lease runs out. */
async function diesHolding(workerId: string): Promise<ClaimedExecution> {
  const [claimed] = (
    await claim(stage.database.db, { workerId, now: stage.clock.now(), leaseMs, limit: 1, workspaceSlots: 10 })
  ).executions;
  if (claimed === undefined) throw new Error("nothing was claimed");
  stage.clock.advance(leaseMs + 1);
  return claimed;
}

const startCrashCountingWorker = () => stage.startWorker({ concurrency: 4, leaseMs, crashAttempts });
const row = (executionId: string) => stage.execution(executionId);
/** Polls the row until `until` holds (bounded: the claim loop polls every 25 ms). */
const reaches = (executionId: string, until: (found: ExecutionRow) => boolean) =>
  stage.waitFor(executionId, until, 30_000);

const ended = (found: { status: string }) => ["succeeded", "failed", "cancelled"].includes(found.status);

describe("an execution whose worker keeps dying", () => {
  it("is failed at its third takeover with WorkerCrashError, none of its code run again; others run", async () => {
    const executionId = await enqueue("prj_crashing", "stepped");
    const taken = [await diesHolding("wrk_dead_1"), await diesHolding("wrk_dead_2"), await diesHolding("wrk_dead_3")];
    expect(taken.map((claimed) => [claimed.id, claimed.transition, claimed.leaseExpiries])).toEqual([
      [executionId, "claim", 0],
      [executionId, "expireLease", 1],
      [executionId, "expireLease", 2],
    ]);
    // Stored on the row by each takeover, not kept by a worker: the next one, in another process, reads it.
    expect((await row(executionId)).leaseExpiries).toBe(2);

    const bystander = await enqueue("prj_bystander", "stepped");
    const worker = await startCrashCountingWorker();
    try {
      const failed = await reaches(executionId, ended);
      expect(failed).toMatchObject({
        status: "failed",
        error: {
          name: "WorkerCrashError",
          message:
            "the worker process died 3 times while running this execution; it is not run again (WEFT_CRASH_ATTEMPTS=3)",
        },
        // The retry policy's three attempts are not what ran out.
        attempt: 1,
        leaseExpiries: 3,
        leaseOwner: null,
      });
      expect(
        await stage.database.db.select().from(executionSteps).where(eq(executionSteps.executionId, executionId)),
      ).toEqual([]);
      const traced = await stage.database.db.select().from(spans).where(eq(spans.executionId, executionId));
      const attempts = traced.filter((span) => span.kind === "attempt");
      expect(attempts.map((span) => span.name).sort()).toEqual([
        "attempt 1",
        "attempt 1 (resumed)",
        "attempt 1 (resumed)",
        "attempt 1 (resumed)",
      ]);
      const last = attempts.find((span) => span.attributes["weft.worker.id"] === worker.id);
      expect(last).toMatchObject({ statusCode: "error", statusMessage: failed.error?.message });
      expect(traced.find((span) => span.kind === "execution")).toMatchObject({
        statusCode: "error",
        statusMessage: failed.error?.message,
      });

      expect(await reaches(bystander, ended)).toMatchObject({ status: "succeeded", output: "ran", leaseExpiries: 0 });
    } finally {
      await worker.stop();
    }
  });

  it("runs a takeover below the limit; a retry neither counts nor resets the count", async () => {
    const executionId = await enqueue("prj_crashing", "flaky");
    await diesHolding("wrk_dead_flaky");
    const worker = await startCrashCountingWorker();
    try {
      // Taken over once, it runs: the first attempt fails and is retried, and the second succeeds.
      expect(await reaches(executionId, ended)).toMatchObject({
        status: "succeeded",
        output: 2,
        attempt: 2,
        leaseExpiries: 1,
      });
    } finally {
      await worker.stop();
    }
  });

  it("counts nothing when a worker stops cleanly and hands the execution back", async () => {
    const executionId = await enqueue("prj_crashing", "lingering");
    const worker = await startCrashCountingWorker();
    await reaches(executionId, (found) => found.status === "running" && found.leaseOwner === worker.id);
    await worker.stop();
    expect(await row(executionId)).toMatchObject({ status: "queued", attempt: 1, leaseExpiries: 0, leaseOwner: null });
  });
});

describe("workerCrashError (unit)", () => {
  const takeover = (leaseExpiries: number) => ({ transition: "expireLease" as const, leaseExpiries });

  it("lets every claim run until a takeover reaches the limit", () => {
    expect(workerCrashError(takeover(2), 3)).toBeUndefined();
    expect(workerCrashError({ transition: "claim", leaseExpiries: 5 }, 3)).toBeUndefined();
    expect(workerCrashError({ transition: "wake", leaseExpiries: 5 }, 3)).toBeUndefined();
    expect(workerCrashError(takeover(4), 3)?.message).toBe(
      "the worker process died 4 times while running this execution; it is not run again (WEFT_CRASH_ATTEMPTS=3)",
    );
    expect(workerCrashError(takeover(1), 1)).toEqual({
      name: "WorkerCrashError",
      message: "the worker process died once while running this execution; it is not run again (WEFT_CRASH_ATTEMPTS=1)",
    });
  });
});
