import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { executions } from "../../src/db/schema/index.ts";
import { createDeployment } from "../../src/deployments/create-deployment.ts";
import { getActiveDeployment } from "../../src/deployments/read-deployments.ts";
import { enqueueExecution } from "../../src/engine/enqueue-execution.ts";
import { startWorker, type Worker, type WorkerOptions } from "../../src/engine/worker.ts";
import { createManualClock, type ManualClock } from "../../src/shared/clock.ts";
import { createIdGenerator, type IdGenerator } from "../../src/shared/ids.ts";
import { createLogger } from "../../src/shared/logger.ts";
import type { Timers } from "../../src/shared/timers.ts";
import { bundleConfig } from "./bundle.ts";
import { createTestDatabase, type TestDatabase } from "./test-database.ts";
import { ensureTestProject } from "./test-projects.ts";

export type ExecutionRow = typeof executions.$inferSelect;

/** A database, a manual clock and a worker, for service-level tests of the engine. */
export interface EngineHarness {
  database: TestDatabase;
  clock: ManualClock;
  ids: IdGenerator;
  worker: Worker;
  dataDir: string;
  /** Deploys into the project, creating it (in the workspace of `options.owner`, an email, if given). */
  deploy(projectId: string, configSource: string, manifest: unknown, options?: { owner?: string }): Promise<string>;
  run(projectId: string, workflow: string, input: unknown, idempotencyKey?: string): Promise<string>;
  execution(id: string): Promise<ExecutionRow>;
  /** Waits (polling the database) until the execution satisfies `until`, then returns it. */
  waitFor(id: string, until: (row: ExecutionRow) => boolean, timeoutMs?: number): Promise<ExecutionRow>;
  stop(): Promise<void>;
}

/** `dependencies.timers` paces the sandbox pool (memory watchdog, bundle load limit); system timers by default. */
export async function startEngineHarness(
  options: Partial<WorkerOptions> = {},
  dependencies: { timers?: Timers } = {},
): Promise<EngineHarness> {
  const database = await createTestDatabase();
  const clock = createManualClock();
  const ids = createIdGenerator(clock);
  const dataDir = mkdtempSync(join(tmpdir(), "weft-engine-"));
  const logger = createLogger({ level: (process.env.WEFT_TEST_LOG_LEVEL as "info" | undefined) ?? "silent" });
  const worker = await startWorker(
    { database, clock, logger, timers: dependencies.timers },
    { concurrency: 8, leaseMs: 30_000, pollIntervalMs: 25, memoryMb: 128, dataDir, ...options },
  );
  const execution = async (id: string) => {
    const [row] = await database.db.select().from(executions).where(eq(executions.id, id));
    if (row === undefined) throw new Error(`no execution ${id}`);
    return row;
  };
  return {
    database,
    clock,
    ids,
    worker,
    dataDir,
    deploy: async (projectId, configSource, manifest, deployOptions) => {
      const bundle = await bundleConfig(configSource);
      await ensureTestProject(database.db, { clock, ids }, projectId, deployOptions?.owner);
      const deployment = await createDeployment(database.db, { clock, ids }, { projectId, manifest, bundle });
      return deployment.id;
    },
    run: async (projectId, workflow, input, idempotencyKey) => {
      const active = await getActiveDeployment(database.db, projectId);
      if (active === undefined) throw new Error(`project ${projectId} has no deployment`);
      const { executionId } = await database.db.transaction((tx) =>
        enqueueExecution(
          tx,
          { clock, ids },
          {
            projectId,
            deploymentId: active.id,
            workflow,
            input,
            trigger: { kind: "api" },
            ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
          },
        ),
      );
      return executionId;
    },
    execution,
    waitFor: async (id, until, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const row = await execution(id);
        if (until(row)) return row;
        if (Date.now() > deadline) {
          throw new Error(`execution ${id} did not reach the expected state: ${JSON.stringify(row)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop: async () => {
      await worker.stop();
      await database.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
