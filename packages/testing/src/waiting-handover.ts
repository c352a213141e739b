import { executionSteps } from "@weft/server/internals";
import { and, eq } from "drizzle-orm";
import type { EngineHarness } from "./engine-harness.ts";
import type { ExecutionRow } from "./test-deployments.ts";

/**
 * Runs `workflow` until its execution waits, then stops the harness's worker: a waiting execution
 * belongs to no worker, so what ends its wait is sent meanwhile and `resumeOnAnotherWorker` goes on.
 */
export async function waitingWithoutWorker(
  engine: EngineHarness,
  projectId: string,
  workflow: string,
  input: unknown,
): Promise<string> {
  const executionId = await engine.run(projectId, workflow, input);
  await engine.waitFor(executionId, (row) => row.status === "waiting");
  await engine.worker.stop();
  return executionId;
}

/** Starts another worker on the harness's database, and answers the execution once it has ended there. */
export async function resumeOnAnotherWorker(engine: EngineHarness, executionId: string): Promise<ExecutionRow> {
  await engine.startWorker({ concurrency: 4 });
  return engine.waitFor(executionId, (row) => row.status === "succeeded" || row.status === "failed");
}

/** What the execution's step `name` stored: a step run twice would store (and hand on) another value. */
export async function storedStepValue(engine: EngineHarness, executionId: string, name: string): Promise<unknown> {
  const [step] = await engine.database.db
    .select()
    .from(executionSteps)
    .where(and(eq(executionSteps.executionId, executionId), eq(executionSteps.name, name)));
  return step?.result.value;
}
