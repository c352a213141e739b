import {
  attemptSpanNames,
  countedStepsWorkflow,
  egressToStepCounter,
  killWorkerOnceReached,
  serverDatabaseForWorkers,
  spawnWorker,
  startCountedRun,
  testServerUrl,
  waitForExecution,
  workerUntilTestEnds,
} from "@weft/testing";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { executionSteps, executions } from "../src/db/schema/index.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";
import { completeWaitToken } from "../src/wait-tokens/complete-wait-token.ts";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    ${countedStepsWorkflow},
    workflow({
      name: "approved",
      async run(input: { base: string }, ctx) {
        const hit = (path: string) => ctx.step(path, async () => (await fetch(input.base + "/" + path)).text());
        const before = await hit("before");
        const token = await ctx.createToken("approval", { timeout: "1d" });
        await ctx.step("ask", () => token.id);
        const answer = await ctx.waitForToken("approval");
        return [before, answer, await hit("after"), token.id];
      },
    }),
  ],
});
`;

const deps = { clock: systemClock, ids: createIdGenerator(systemClock) };
const serverDatabase = serverDatabaseForWorkers();

/** The server database, a step counter, and a run of `workflow` deployed into a project of its own. */
async function startRun(projectId: string, workflow: string) {
  const database = serverDatabase();
  const run = await startCountedRun(database, deps, {
    projectId,
    manifest: { version: 1, workflows: [{ name: "counted" }, { name: "approved" }] },
    configSource: source,
    workflow,
  });
  return { database, databaseUrl: database.url, ...run };
}

const inStatus = (status: string) => (row: { status: string }) => row.status === status;

// The embedded database belongs to a single process, so several worker processes need PostgreSQL.
describe.skipIf(testServerUrl() === undefined)("a worker killed mid-execution (PostgreSQL only)", () => {
  it("is replaced by another worker that resumes from the last stored step", async () => {
    const { database, databaseUrl, counter, executionId } = await startRun("prj_crash", "counted");
    await killWorkerOnceReached(databaseUrl, egressToStepCounter, () => counter.blocked);

    workerUntilTestEnds(databaseUrl, egressToStepCounter);
    const row = await waitForExecution(database.db, executionId, inStatus("succeeded"), {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    expect(row.output).toEqual(["first#1", "block#2", "last#1"]);
    expect(Object.fromEntries(counter.hits)).toEqual({ first: 1, block: 2, last: 1 });
    const steps = await database.db.select().from(executionSteps).where(eq(executionSteps.executionId, executionId));
    expect(steps.map((step) => step.name).sort()).toEqual(["block", "first", "last"]);
    expect(await attemptSpanNames(database.db, executionId)).toEqual(["attempt 1", "attempt 1 (resumed)"]);
  });
});

// What a container's stop does: SIGTERM, then SIGKILL once its stop timeout is over.
describe.skipIf(testServerUrl() === undefined)("a worker stopped with SIGTERM mid-execution (PostgreSQL only)", () => {
  it("hands the execution back before it exits: queued, no lease, resumed by the next worker from the last stored step", async () => {
    const { database, databaseUrl, counter, executionId } = await startRun("prj_stopped", "counted");
    // A lease far longer than the test: only the hand-back can free the execution.
    const lease = { ...egressToStepCounter, WEFT_WORKER_LEASE_SECONDS: "3600" };
    const first = spawnWorker(databaseUrl, lease);
    await counter.blocked;
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    const [handedBack] = await database.db
      .select({ status: executions.status, leaseOwner: executions.leaseOwner, leaseExpiries: executions.leaseExpiries })
      .from(executions)
      .where(eq(executions.id, executionId));
    expect(handedBack).toEqual({ status: "queued", leaseOwner: null, leaseExpiries: 0 });

    workerUntilTestEnds(databaseUrl, lease);
    const row = await waitForExecution(database.db, executionId, inStatus("succeeded"), {
      timeoutMs: 30_000,
      intervalMs: 100,
    });
    expect(row.output).toEqual(["first#1", "block#2", "last#1"]);
    expect(Object.fromEntries(counter.hits)).toEqual({ first: 1, block: 2, last: 1 });
  }, 90_000);
});

describe.skipIf(testServerUrl() === undefined)(
  "a worker killed while an execution waits for a token (PostgreSQL only)",
  () => {
    it("loses nothing: the completed token resumes it on another worker, which runs no step twice", async () => {
      const { database, databaseUrl, counter, executionId } = await startRun("prj_crash_wait", "approved");
      const reach = (status: string) =>
        waitForExecution(database.db, executionId, inStatus(status), { timeoutMs: 30_000, intervalMs: 100 });

      await killWorkerOnceReached(databaseUrl, egressToStepCounter, () => reach("waiting"));

      const steps = await database.db.select().from(executionSteps).where(eq(executionSteps.executionId, executionId));
      const tokenId = steps.find((step) => step.name === "ask")?.result.value;
      if (typeof tokenId !== "string") throw new Error("no token id stored");
      const completed = await completeWaitToken(database.db, deps, { tokenId, data: { approved: true } });
      expect(completed).toEqual({ ok: true, value: { executionId } });

      workerUntilTestEnds(databaseUrl, egressToStepCounter);
      const row = await reach("succeeded");
      expect(row.output).toEqual(["before#1", { ok: true, data: { approved: true } }, "after#1", tokenId]);
      expect(Object.fromEntries(counter.hits)).toEqual({ before: 1, after: 1 });
      expect(await attemptSpanNames(database.db, executionId)).toEqual(["attempt 1", "attempt 1 (resumed)"]);
    });
  },
);
