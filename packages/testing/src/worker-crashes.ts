import { afterAll, beforeAll, onTestFinished } from "vitest";
import { spawnWorker } from "./spawn-worker.ts";
import { type StepCounter, startStepCounter } from "./step-counter.ts";
import { createTestDatabase, type TestDatabase, testServerUrl } from "./test-database.ts";
import { deployTestProject, enqueueTestExecution } from "./test-deployments.ts";

/** A database on the PostgreSQL server, which several worker processes can share. */
export type ServerTestDatabase = TestDatabase & { url: string };

/** Lets a spawned worker's workflows fetch the test's own loopback step counter, through the sandbox's egress proxy. */
export const egressToStepCounter = { WEFT_SANDBOX_EGRESS_ALLOW: "127.0.0.1" };

/**
 * Creates the file's database on the PostgreSQL server before its tests and drops it after them,
 * when there is a server (WEFT_TEST_DATABASE_URL): the embedded database belongs to a single
 * process, so tests of several worker processes skip without one. Answers a reader of it, which
 * throws when it is read without a server.
 */
export function serverDatabaseForWorkers(): () => ServerTestDatabase {
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    if (testServerUrl() !== undefined) database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.destroy();
  });
  return () => {
    if (database?.url === undefined) throw new Error("no server database");
    return database as ServerTestDatabase;
  };
}

type RunDeps = Parameters<typeof deployTestProject>[1] & Parameters<typeof enqueueTestExecution>[1];

/**
 * A step counter, `configSource` deployed into a project of its own, and a queued execution of
 * `workflow` whose input is `input` with the counter's `base`; the counter closes when the test ends.
 */
export async function startCountedRun(
  database: TestDatabase,
  deps: RunDeps,
  run: { projectId: string; manifest: unknown; configSource: string; workflow: string; input?: object },
): Promise<{ counter: StepCounter; executionId: string }> {
  const counter = await startStepCounter();
  onTestFinished(() => counter.close());
  const deploymentId = await deployTestProject(database.db, deps, {
    projectId: run.projectId,
    manifest: run.manifest,
    configSource: run.configSource,
  });
  const executionId = await enqueueTestExecution(database.db, deps, {
    projectId: run.projectId,
    deploymentId,
    workflow: run.workflow,
    input: { ...run.input, base: counter.base },
  });
  return { counter, executionId };
}

/** Spawns a worker, waits for `reached` (the point of the crash), then kills it with SIGKILL and waits for it to exit. */
export async function killWorkerOnceReached(
  databaseUrl: string,
  env: Record<string, string>,
  reached: () => Promise<unknown>,
): Promise<void> {
  const worker = spawnWorker(databaseUrl, env);
  try {
    await reached();
  } finally {
    worker.child.kill("SIGKILL");
    await worker.exited;
  }
}

/** Spawns a worker that runs until the test ends, when it is stopped with SIGTERM, passed or failed. */
export function workerUntilTestEnds(databaseUrl: string, env: Record<string, string>): void {
  const worker = spawnWorker(databaseUrl, env);
  onTestFinished(async () => {
    worker.child.kill("SIGTERM");
    await worker.exited;
  });
}
