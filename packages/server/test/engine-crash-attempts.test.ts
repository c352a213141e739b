import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleConfig, createTestDatabase, ensureTestProject, type TestDatabase } from "@weft/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executionSteps, executions, spans } from "../src/db/schema/index.ts";
import { createDeployment } from "../src/deployments/create-deployment.ts";
import { workerCrashError } from "../src/engine/crash-attempts.ts";
import { enqueueExecution } from "../src/engine/enqueue-execution.ts";
import { type ClaimedExecution, claim } from "../src/engine/execution-state/index.ts";
import { resolveSandboxIsolation } from "../src/engine/sandbox/sandbox-isolation.ts";
import { startWorker, type Worker } from "../src/engine/worker.ts";
import { createManualClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";
import { createLogger } from "../src/shared/logger.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";
import { waitTokenIssuer } from "../src/wait-tokens/token-secret.ts";

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
const clock = createManualClock();
const ids = createIdGenerator(clock);
const deps = { clock, ids };
const dataDir = mkdtempSync(join(tmpdir(), "weft-crash-attempts-"));
let database: TestDatabase;
const deploymentIds = new Map<string, string>();

beforeAll(async () => {
  database = await createTestDatabase();
  const bundle = await bundleConfig(source);
  for (const [projectId, owner] of [
    ["prj_crashing", "crashing@tests.weft.invalid"],
    ["prj_bystander", "bystander@tests.weft.invalid"],
  ] as const) {
    await ensureTestProject(database.db, deps, projectId, owner);
    const deployment = valueOrThrow(await createDeployment(database.db, deps, { projectId, manifest, bundle }));
    deploymentIds.set(projectId, deployment.id);
  }
});
afterAll(async () => {
  await database.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

async function enqueue(projectId: string, workflow: string): Promise<string> {
  const deploymentId = deploymentIds.get(projectId);
  if (deploymentId === undefined) throw new Error(`no deployment of ${projectId}`);
  const { executionId } = valueOrThrow(
    await database.db.transaction((tx) =>
      enqueueExecution(tx, deps, { projectId, deploymentId, workflow, input: {}, trigger: { kind: "api" } }),
    ),
  );
  return executionId;
}

/** A worker that leases one execution and then dies: nothing more is written for it, and its lease runs out. */
async function diesHolding(workerId: string): Promise<ClaimedExecution> {
  const [claimed] = (await claim(database.db, { workerId, now: clock.now(), leaseMs, limit: 1, workspaceSlots: 10 }))
    .executions;
  if (claimed === undefined) throw new Error("nothing was claimed");
  clock.advance(leaseMs + 1);
  return claimed;
}

async function startTestWorker(): Promise<Worker> {
  const resolution = await resolveSandboxIsolation({ mode: "auto", egress: "public", egressAllow: [] });
  if (resolution.kind === "refused") throw new Error(resolution.message);
  return startWorker(
    { database, clock, logger: createLogger({ level: "silent" }) },
    {
      concurrency: 4,
      leaseMs,
      pollIntervalMs: 25,
      memoryMb: 128,
      dataDir,
      sandbox: resolution.isolation,
      tokens: waitTokenIssuer({ secretKey: Buffer.alloc(32, 7), baseUrl: "http://localhost:3000" }),
      crashAttempts,
    },
  );
}

async function row(executionId: string) {
  const [found] = await database.db.select().from(executions).where(eq(executions.id, executionId));
  if (found === undefined) throw new Error(`no execution ${executionId}`);
  return found;
}

/** Polls the row until `until` holds (bounded: the claim loop polls every 25 ms). */
async function reaches(executionId: string, until: (found: Awaited<ReturnType<typeof row>>) => boolean) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const found = await row(executionId);
    if (until(found)) return found;
    if (Date.now() > deadline) throw new Error(`execution ${executionId} stuck: ${JSON.stringify(found)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

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
    const worker = await startTestWorker();
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
        await database.db.select().from(executionSteps).where(eq(executionSteps.executionId, executionId)),
      ).toEqual([]);
      const traced = await database.db.select().from(spans).where(eq(spans.executionId, executionId));
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
    const worker = await startTestWorker();
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
    const worker = await startTestWorker();
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
