import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundleConfig, createTestDatabase, ensureTestProject, type TestDatabase } from "@weft/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executions, workerHeartbeats } from "../src/db/schema/index.ts";
import { createDeployment } from "../src/deployments/create-deployment.ts";
import { enqueueExecution } from "../src/engine/enqueue-execution.ts";
import { claim, recordStep } from "../src/engine/execution-state/index.ts";
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
  workflows: [workflow({ name: "resumable", async run(_input: unknown, ctx) {
    const first = await ctx.step("first", async () => "ran again after the crash");
    const second = await ctx.step("second", async () => "ran once");
    return { first, second };
  } })],
});
`;

const leaseMs = 30_000;
// The clock never moves in this file: a take-over that waited for a lease to lapse would never come.
const clock = createManualClock();
const ids = createIdGenerator(clock);
const deps = { clock, ids };
let database: TestDatabase;
let deploymentId: string;
const dataDir = mkdtempSync(join(tmpdir(), "weft-takeover-"));

beforeAll(async () => {
  database = await createTestDatabase();
  await ensureTestProject(database.db, deps, "prj_takeover");
  const deployment = valueOrThrow(
    await createDeployment(database.db, deps, {
      projectId: "prj_takeover",
      manifest: { version: 1, workflows: [{ name: "resumable" }] },
      bundle: await bundleConfig(source),
    }),
  );
  deploymentId = deployment.id;
});
afterAll(async () => {
  await database.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

/** An execution leased by `workerId` with its first step stored, as a worker leaves it when it dies mid-run. */
async function leftRunningBy(workerId: string): Promise<string> {
  const { executionId } = valueOrThrow(
    await database.db.transaction((tx) =>
      enqueueExecution(tx, deps, {
        projectId: "prj_takeover",
        deploymentId,
        workflow: "resumable",
        input: {},
        trigger: { kind: "api" },
      }),
    ),
  );
  const now = clock.now();
  const [claimed] = (await claim(database.db, { workerId, now, leaseMs, limit: 1, workspaceSlots: 10 })).executions;
  if (claimed?.id !== executionId) throw new Error("the execution was not claimed");
  await recordStep(
    database.db,
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
    },
  );
}

async function settled(executionId: string) {
  for (;;) {
    const [row] = await database.db.select().from(executions).where(eq(executions.id, executionId));
    if (row !== undefined && row.status !== "running" && row.status !== "queued") return row;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("a worker that starts", () => {
  it("takes over at once the executions of a worker that is gone, resuming after the stored step", async () => {
    const executionId = await leftRunningBy("wrk_crashed");
    const startedAt = clock.now();
    const worker = await startTestWorker();
    try {
      const row = await settled(executionId);
      expect(row).toMatchObject({
        status: "succeeded",
        output: { first: "stored before the crash", second: "ran once" },
        attempt: 1,
      });
      expect(clock.now()).toEqual(startedAt);
    } finally {
      await worker.stop();
    }
  });

  it("leaves alone, on PostgreSQL, the executions of a worker whose heartbeat is live", async () => {
    if (database.kind === "embedded") return;
    const now = clock.now();
    await database.db
      .insert(workerHeartbeats)
      .values({ workerId: "wrk_alive", startedAt: now, expiresAt: new Date(now.getTime() + leaseMs) });
    const executionId = await leftRunningBy("wrk_alive");
    const worker = await startTestWorker();
    try {
      await worker.poke();
      const [row] = await database.db.select().from(executions).where(eq(executions.id, executionId));
      expect(row).toMatchObject({ status: "running", leaseOwner: "wrk_alive" });
    } finally {
      await worker.stop();
    }
  });

  it("registers with a heartbeat row, renewed with its leases and removed when it stops cleanly", async () => {
    const worker = await startTestWorker();
    const [row] = await database.db.select().from(workerHeartbeats).where(eq(workerHeartbeats.workerId, worker.id));
    expect(row?.expiresAt).toEqual(new Date(clock.now().getTime() + leaseMs));
    await worker.stop();
    const after = await database.db.select().from(workerHeartbeats).where(eq(workerHeartbeats.workerId, worker.id));
    expect(after).toEqual([]);
  });
});
