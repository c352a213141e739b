import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ResolveHost, SandboxConfig, Timers } from "@weft/server/internals";
import {
  createDeployment,
  createIdGenerator,
  createManualClock,
  enqueueExecution,
  executions,
  getActiveDeployment,
  type IdGenerator,
  type ManualClock,
  type PeriodicJobs,
  resolveSandboxIsolation,
  type SandboxIsolation,
  startPeriodicJobs,
  startWorker,
  unlimitedPlan,
  valueOrThrow,
  type Worker,
  type WorkerOptions,
  waitTokenIssuer,
} from "@weft/server/internals";
import { eq } from "drizzle-orm";
import { bundleConfig } from "./bundle.ts";
import { testPlatformLogger } from "./log-capture.ts";
import { createTestDatabase, type TestDatabase } from "./test-database.ts";
import { ensureTestProject } from "./test-projects.ts";

export type ExecutionRow = typeof executions.$inferSelect;

/** A database, a manual clock and a worker, for service-level tests of the engine. */
export interface EngineHarness {
  database: TestDatabase;
  clock: ManualClock;
  ids: IdGenerator;
  worker: Worker;
  /** The periodic jobs beside the worker, as a platform runs them. */
  periodicJobs: PeriodicJobs;
  /** The sandbox isolation the worker runs under, for another worker on the same database. */
  isolation: SandboxIsolation;
  dataDir: string;
  /** Deploys into the project, creating it (in the workspace of `options.owner`, an email, if given). */
  deploy(projectId: string, configSource: string, manifest: unknown, options?: { owner?: string }): Promise<string>;
  run(projectId: string, workflow: string, input: unknown, idempotencyKey?: string): Promise<string>;
  execution(id: string): Promise<ExecutionRow>;
  /** Waits (polling the database) until the execution satisfies `until`, then returns it. */
  waitFor(id: string, until: (row: ExecutionRow) => boolean, timeoutMs?: number): Promise<ExecutionRow>;
  stop(): Promise<void>;
}

export interface EngineHarnessOptions extends Partial<Omit<WorkerOptions, "sandbox">> {
  /** The sandbox as WEFT_SANDBOX* would configure it; by default bubblewrap when it works, public egress. */
  sandbox?: Partial<SandboxConfig>;
  /** How the egress proxy resolves host names. */
  resolveHost?: ResolveHost;
  /** The isolation itself, skipping the probe (to test what a broken one does). */
  isolation?: SandboxIsolation;
}

/** The secret key of the harness's worker (its wait token ids are derived from it). */
export const engineSecretKey = Buffer.alloc(32, 7);

/** `dependencies.timers` paces the sandbox pool (memory watchdog, bundle load limit) and the worker's wake-ups; system timers by default. */
export async function startEngineHarness(
  options: EngineHarnessOptions = {},
  dependencies: { timers?: Timers } = {},
): Promise<EngineHarness> {
  const { sandbox: sandboxConfig, resolveHost, isolation, ...workerOptions } = options;
  const resolution =
    isolation === undefined
      ? await resolveSandboxIsolation({ mode: "auto", egress: "public", egressAllow: [], ...sandboxConfig })
      : { kind: "isolated" as const, isolation };
  if (resolution.kind === "refused") throw new Error(resolution.message);
  const database = await createTestDatabase();
  const clock = createManualClock();
  const ids = createIdGenerator(clock);
  const dataDir = mkdtempSync(join(tmpdir(), "weft-engine-"));
  const logger = testPlatformLogger("engine");
  const worker = await startWorker(
    { database, clock, logger, resolveHost, timers: dependencies.timers },
    {
      concurrency: 8,
      leaseMs: 30_000,
      pollIntervalMs: 25,
      memoryMb: 128,
      dataDir,
      sandbox: resolution.isolation,
      tokens: waitTokenIssuer({ secretKey: engineSecretKey, baseUrl: "http://localhost:3000" }),
      ...workerOptions,
    },
  );
  const periodicJobs = startPeriodicJobs(
    {
      db: database.db,
      clock,
      logger,
      catalogue: workerOptions.billing ?? { plans: [unlimitedPlan], defaultPlan: unlimitedPlan.name },
    },
    { intervalMs: workerOptions.pollIntervalMs ?? 25 },
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
    periodicJobs,
    isolation: resolution.isolation,
    dataDir,
    deploy: async (projectId, configSource, manifest, deployOptions) => {
      const bundle = await bundleConfig(configSource);
      await ensureTestProject(database.db, { clock, ids }, projectId, deployOptions?.owner);
      const deployment = valueOrThrow(
        await createDeployment(database.db, { clock, ids }, { projectId, manifest, bundle }),
      );
      return deployment.id;
    },
    run: async (projectId, workflow, input, idempotencyKey) => {
      const active = await getActiveDeployment(database.db, projectId);
      if (active === undefined) throw new Error(`project ${projectId} has no deployment`);
      const { executionId } = valueOrThrow(
        await database.db.transaction((tx) =>
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
      await periodicJobs.stop();
      await database.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
