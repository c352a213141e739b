import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger, ResolveHost, SandboxConfig, Timers } from "@weft/server/internals";
import {
  createIdGenerator,
  createManualClock,
  type EndStatementParts,
  endStatementParts,
  getActiveDeployment,
  type IdGenerator,
  type ManualClock,
  type PeriodicJobs,
  resolveSandboxIsolation,
  type SandboxIsolation,
  startPeriodicJobs,
  startWorker,
  unlimitedPlan,
  type Worker,
  type WorkerDependencies,
  type WorkerFeatureSettings,
  type WorkerOptions,
  waitTokenIssuer,
  workerFeatures,
} from "@weft/server/internals";
import { testPlatformLogger } from "./log-capture.ts";
import { createTestDatabase, type TestDatabase } from "./test-database.ts";
import {
  deployTestProject,
  type ExecutionRow,
  enqueueTestExecution,
  readExecution,
  waitForExecution,
} from "./test-deployments.ts";

/** A database, a manual clock and a data dir with no worker yet, for tests that set the stage before one starts. */
export interface EngineStage {
  database: TestDatabase;
  clock: ManualClock;
  ids: IdGenerator;
  /** The sandbox isolation the stage's workers run under. */
  isolation: SandboxIsolation;
  dataDir: string;
  /** Where the stage's workers log: the run's log capture. */
  logger: Logger;
  /** What the features record in the statement that ends an execution, as the platform wires them. */
  endStatementParts: EndStatementParts;
  /** Deploys into the project, creating it (in the workspace of `options.owner`, an email, if given). */
  deploy(projectId: string, configSource: string, manifest: unknown, options?: { owner?: string }): Promise<string>;
  run(projectId: string, workflow: string, input: unknown, idempotencyKey?: string): Promise<string>;
  execution(id: string): Promise<ExecutionRow>;
  /** Waits (polling the database) until the execution satisfies `until`, then returns it. */
  waitFor(id: string, until: (row: ExecutionRow) => boolean, timeoutMs?: number): Promise<ExecutionRow>;
  /** Starts a worker on the stage's database and data dir (`stop` stops it too, if still running). */
  startWorker(options?: Omit<TestWorkerOptions, "sandbox" | "dataDir">): Promise<Worker>;
  stop(): Promise<void>;
}

/** A database, a manual clock and a worker, for service-level tests of the engine. */
export interface EngineHarness extends EngineStage {
  worker: Worker;
  /** The periodic jobs beside the worker, as a platform runs them. */
  periodicJobs: PeriodicJobs;
}

export interface EngineStageOptions {
  /** The sandbox as WEFT_SANDBOX* would configure it; by default bubblewrap when it works, public egress. */
  sandbox?: Partial<SandboxConfig>;
  /** How the egress proxy resolves host names. */
  resolveHost?: ResolveHost;
  /** The isolation itself, skipping the probe (to test what a broken one does). */
  isolation?: SandboxIsolation;
}

/** A test worker's options, and the settings of the features it asks (its plans, the keys of integration secrets). */
export type TestWorkerOptions = Partial<Omit<WorkerOptions, "sandbox">> & WorkerFeatureSettings;

export interface EngineHarnessOptions extends EngineStageOptions, Omit<TestWorkerOptions, "dataDir"> {}

/** The secret key of the harness's worker (its wait token ids are derived from it). */
export const engineSecretKey = Buffer.alloc(32, 7);

/** The sandbox isolation as WEFT_SANDBOX* would configure it; by default bubblewrap when it works, public egress. */
export async function resolveTestIsolation(sandbox: Partial<SandboxConfig> = {}): Promise<SandboxIsolation> {
  const resolution = await resolveSandboxIsolation({ mode: "auto", egress: "public", egressAllow: [], ...sandbox });
  if (resolution.kind === "refused") throw new Error(resolution.message);
  return resolution.isolation;
}

/** `dependencies.timers` paces the sandbox pool (memory watchdog, bundle load limit) and the workers' wake-ups; system timers by default. */
export async function startEngineStage(
  options: EngineStageOptions = {},
  dependencies: { timers?: Timers } = {},
): Promise<EngineStage> {
  const isolation = options.isolation ?? (await resolveTestIsolation(options.sandbox));
  const database = await createTestDatabase();
  const clock = createManualClock();
  const ids = createIdGenerator(clock);
  const dataDir = mkdtempSync(join(tmpdir(), "weft-engine-"));
  const logger = testPlatformLogger("engine");
  const workers: Worker[] = [];
  return {
    database,
    clock,
    ids,
    isolation,
    dataDir,
    logger,
    endStatementParts,
    deploy: (projectId, configSource, manifest, deployOptions) =>
      deployTestProject(
        database.db,
        { clock, ids },
        { projectId, configSource, manifest, owner: deployOptions?.owner },
      ),
    run: async (projectId, workflow, input, idempotencyKey) => {
      const active = await getActiveDeployment(database.db, projectId);
      if (active === undefined) throw new Error(`project ${projectId} has no deployment`);
      return enqueueTestExecution(
        database.db,
        { clock, ids },
        {
          projectId,
          deploymentId: active.id,
          workflow,
          input,
          ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
        },
      );
    },
    execution: (id) => readExecution(database.db, id),
    waitFor: (id, until, timeoutMs) => waitForExecution(database.db, id, until, { timeoutMs }),
    startWorker: async (workerOptions = {}) => {
      const worker = await startTestWorker(
        { database, clock, logger, resolveHost: options.resolveHost, timers: dependencies.timers },
        { ...workerOptions, dataDir, sandbox: isolation },
      );
      workers.push(worker);
      return worker;
    },
    stop: async () => {
      for (const worker of workers) await worker.stop();
      await database.destroy();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A worker as the harness starts one, on `dependencies.database`: the harness's own, another on the
 * same database, or one a test starts once it has left the database as it wants it. It logs to the
 * run's log capture unless given a logger; the sandbox isolation is resolved unless given.
 */
export async function startTestWorker(
  dependencies: Omit<WorkerDependencies, "logger" | "features"> & { logger?: Logger },
  options: TestWorkerOptions & { dataDir: string; sandbox?: SandboxIsolation },
): Promise<Worker> {
  const { billing, keyring, ...workerOptions } = options;
  return startWorker(
    {
      ...dependencies,
      features: workerFeatures({ db: dependencies.database.db, clock: dependencies.clock }, { billing, keyring }),
      logger: dependencies.logger ?? testPlatformLogger("engine"),
    },
    {
      concurrency: 8,
      leaseMs: 30_000,
      pollIntervalMs: 25,
      memoryMb: 128,
      tokens: waitTokenIssuer({ secretKey: engineSecretKey, baseUrl: "http://localhost:3000" }),
      ...workerOptions,
      sandbox: workerOptions.sandbox ?? (await resolveTestIsolation()),
    },
  );
}

/** An engine stage with its worker and the periodic jobs beside it, started. */
export async function startEngineHarness(
  options: EngineHarnessOptions = {},
  dependencies: { timers?: Timers } = {},
): Promise<EngineHarness> {
  const { sandbox, resolveHost, isolation, ...workerOptions } = options;
  const stage = await startEngineStage({ sandbox, resolveHost, isolation }, dependencies);
  const worker = await stage.startWorker(workerOptions);
  const periodicJobs = startPeriodicJobs(
    {
      db: stage.database.db,
      clock: stage.clock,
      logger: stage.logger,
      catalogue: workerOptions.billing ?? { plans: [unlimitedPlan], defaultPlan: unlimitedPlan.name },
    },
    { intervalMs: workerOptions.pollIntervalMs ?? 25 },
  );
  return {
    ...stage,
    worker,
    periodicJobs,
    stop: async () => {
      await worker.stop();
      await periodicJobs.stop();
      await stage.stop();
    },
  };
}
