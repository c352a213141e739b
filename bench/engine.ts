import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createDeployment,
  createIdGenerator,
  createLogger,
  endStatementParts,
  enqueueExecution,
  executions,
  type LocalStarts,
  openDatabase,
  resolveSandboxIsolation,
  runWorkflow,
  sendEvent,
  spans,
  startWorker,
  systemClock,
  valueOrThrow,
  type Worker,
  waitTokenIssuer,
  workerFeatures,
} from "@weft/server/internals";
import { bundleConfig, createTestDatabase, ensureTestProject, type TestDatabase } from "@weft/testing";
import { and, count, eq, max, sql } from "drizzle-orm";
import { median } from "./median.ts";

/**
 * Engine benchmarks: orchestration overhead per step (total time of one execution minus the time
 * spent inside user code, divided by its steps), apart from it what each step adds to an execution
 * of one step, and the rate at which a worker drains a backlog of single-step executions. Time
 * inside user code is what the sandbox measured around each step. The executions measured one by
 * one start as `workflows.run` starts them: on the embedded database, written leased to the idle
 * worker (a local start); on PostgreSQL, queued for its claim.
 */

export const source = `
import { defineConfig, workflow } from "@weft/sdk";
function fib(n: number): number { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
export default defineConfig({
  workflows: [
    workflow({ name: "trivial40", retries: { maxAttempts: 1 }, async run(_input: unknown, ctx) {
      let total = 0;
      for (let i = 0; i < 40; i++) total += await ctx.step("s" + i, () => i);
      return total;
    } }),
    workflow({ name: "fib10", retries: { maxAttempts: 1 }, async run(_input: unknown, ctx) {
      let total = 0;
      for (let i = 0; i < 10; i++) total += await ctx.step("fib" + i, () => fib(33));
      return total;
    } }),
    workflow({ name: "single", retries: { maxAttempts: 1 }, async run(_input: unknown, ctx) {
      return ctx.step("only", () => 1);
    } }),
    // A child invocation as its parent sees it: from before the invoke to after it, each instant
    // taken in a step (stored, so the resumed attempt reads the first one back).
    workflow({ name: "invoker", retries: { maxAttempts: 1 }, async run(_input: unknown, ctx) {
      const before = await ctx.step("before", () => performance.timeOrigin + performance.now());
      await ctx.invoke("child", "single", {});
      const after = await ctx.step("after", () => performance.timeOrigin + performance.now());
      return after - before;
    } }),
    ...Array.from({ length: 10 }, (_, i) => workflow({
      name: "fan" + i,
      retries: { maxAttempts: 1 },
      on: [{ event: "bench.fanout" }],
      async run(_input: unknown, ctx) {
        return ctx.step("only", () => 1);
      },
    })),
  ],
});
`;

const once = { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 };
const fanOut = 10;
export const manifest = {
  version: 1 as const,
  workflows: [
    ...["trivial40", "fib10", "single", "invoker"].map((name) => ({ name, retries: once })),
    // An event's fan-out: ten workflows of one step each, subscribed to the same event.
    ...Array.from({ length: fanOut }, (_, i) => ({ name: `fan${i}`, retries: once, on: [{ event: "bench.fanout" }] })),
  ],
};
/** A project id the API accepts, so that the big-tables bench can list its executions over RPC. */
export const projectId = "prj_01jbenchengine000000000000";
const drainCount = Number(process.env.BENCH_DRAIN_EXECUTIONS ?? 10_000);
const workerConcurrency = Number(process.env.BENCH_WORKER_CONCURRENCY ?? 50);

export interface Bench {
  database: TestDatabase;
  deploymentId: string;
  dataDir: string;
  /** The running worker's, which `workflows.run` hands a new execution to (the embedded database only). */
  localStarts?: LocalStarts | undefined;
}

const deps = { clock: systemClock, ids: createIdGenerator(systemClock) };
const logger = createLogger({ level: "warn" });
// Measured under the isolation a default installation gets: bubblewrap when it works here.
const sandboxResolution = await resolveSandboxIsolation({ mode: "auto", egress: "public", egressAllow: [] });
if (sandboxResolution.kind === "refused") throw new Error(sandboxResolution.message);
const sandbox = sandboxResolution.isolation;

export function enqueue(bench: Bench, workflow: string, n: number): Promise<string[]> {
  return bench.database.db.transaction(async (tx) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const { executionId } = valueOrThrow(
        await enqueueExecution(tx, deps, {
          projectId,
          deploymentId: bench.deploymentId,
          workflow,
          input: {},
          trigger: { kind: "api" },
        }),
      );
      ids.push(executionId);
    }
    return ids;
  });
}

/** One execution started as `workflows.run` starts it. */
async function startRun(bench: Bench, workflow: string): Promise<string> {
  const started = await runWorkflow(
    bench.database.db,
    { ...deps, localStarts: bench.localStarts },
    { projectId, workflow, input: {} },
  );
  return valueOrThrow(started).executionId;
}

function start(bench: Bench): Promise<Worker> {
  return startWorker(
    {
      database: bench.database,
      features: workerFeatures({ db: bench.database.db, clock: systemClock }, {}),
      clock: systemClock,
      logger,
    },
    // One tenant drains the backlog: the whole worker is its share (the default is half).
    {
      concurrency: workerConcurrency,
      leaseMs: 30_000,
      pollIntervalMs: 200,
      memoryMb: 512,
      dataDir: bench.dataDir,
      sandbox,
      workspaceShare: 1,
      tokens: waitTokenIssuer({ secretKey: randomBytes(32), baseUrl: "http://localhost:3000" }),
    },
  );
}

async function finished(bench: Bench, id: string): Promise<typeof executions.$inferSelect> {
  for (;;) {
    const [row] = await bench.database.db.select().from(executions).where(eq(executions.id, id));
    if (row?.status === "succeeded") return row;
    if (row?.status === "failed") throw new Error(`benchmark execution failed: ${JSON.stringify(row.error)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// Medians of five moved too far between runs to be read against a target of 1 ms a step
// (docs/decisions/0135-the-end-built-once.md).
const engineRuns = Number(process.env.BENCH_ENGINE_RUNS ?? 21);

/** One execution's wall time (enqueued → finished) and the part of it spent in user code. */
async function runOnce(bench: Bench, workflow: string): Promise<{ totalMs: number; userMs: number }> {
  const id = await startRun(bench, workflow);
  const row = await finished(bench, id);
  const [user] = await bench.database.db
    .select({ ms: sql<number>`coalesce(sum((${spans.attributes} ->> 'weft.step.duration_ms')::float8), 0)` })
    .from(spans)
    .where(and(eq(spans.executionId, id), eq(spans.kind, "step")));
  return { totalMs: (row.finishedAt?.getTime() ?? 0) - row.createdAt.getTime(), userMs: Number(user?.ms ?? 0) };
}

interface Measured {
  runs: { totalMs: number; userMs: number }[];
  /** Flushes to disk while they ran (the embedded database only). */
  syncs: number | undefined;
  /** The median of their time outside user code. */
  overheadMs: number;
}

/** Several executions of one workflow, one after the other. */
async function runSeveral(bench: Bench, workflow: string): Promise<Measured> {
  const runs: { totalMs: number; userMs: number }[] = [];
  const syncsBefore = bench.database.syncs?.();
  for (let run = 0; run < engineRuns; run += 1) runs.push(await runOnce(bench, workflow));
  const syncs = syncsBefore === undefined ? undefined : (bench.database.syncs?.() ?? 0) - syncsBefore;
  return { runs, syncs, overheadMs: median(runs.map((run) => run.totalMs - run.userMs)) };
}

/**
 * The line of one workflow's executions: medians of their time and overhead, and what its steps add
 * beyond the cost of an execution of one step (`fixedMs`, the same median for `single`): the
 * overhead divided by the steps counts an execution's claim, start and end in each step.
 */
function stepLine(workflow: string, steps: number, measured: Measured, fixedMs: number): string {
  const { runs, syncs, overheadMs } = measured;
  const flushes = syncs === undefined ? "" : `, ${(syncs / (engineRuns * steps)).toFixed(2)} flushes to disk per step`;
  const totalMs = median(runs.map((run) => run.totalMs));
  const userMs = median(runs.map((run) => run.userMs));
  const overhead = median(runs.map((run) => (run.totalMs - run.userMs) / steps));
  const beyond = (overheadMs - fixedMs) / (steps - 1);
  return `${workflow.padEnd(10)} total ${totalMs.toFixed(0).padStart(6)} ms, in user code ${userMs.toFixed(1).padStart(8)} ms, overhead ${overhead.toFixed(2)} ms/step (medians of ${engineRuns} runs${flushes}; target < 1 ms); each step past the first ${beyond.toFixed(2)} ms`;
}

export interface Drain {
  seconds: number;
  perSecond: number;
}

export function formatDrain(drain: Drain): string {
  return `drained ${drainCount} single-step executions in ${drain.seconds.toFixed(2)} s: ${drain.perSecond.toFixed(0)} executions/s (worker concurrency ${workerConcurrency})`;
}

export async function measureDrain(bench: Bench): Promise<Drain> {
  const succeeded = async () => {
    const [done] = await bench.database.db
      .select({ n: count(), last: max(executions.finishedAt) })
      .from(executions)
      .where(
        and(eq(executions.projectId, projectId), eq(executions.workflow, "single"), eq(executions.status, "succeeded")),
      );
    return { n: done?.n ?? 0, last: done?.last ?? undefined };
  };
  // The engine's other measurements ran single-step executions on this database too.
  const before = (await succeeded()).n;
  for (let queued = 0; queued < drainCount; queued += 500)
    await enqueue(bench, "single", Math.min(500, drainCount - queued));
  const started = Date.now();
  const worker = await start(bench);
  try {
    for (;;) {
      const done = await succeeded();
      if (done.n >= before + drainCount) {
        const seconds = ((done.last?.getTime() ?? Date.now()) - started) / 1000;
        return { seconds, perSecond: drainCount / seconds };
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await worker.stop();
  }
}

/**
 * The database of a run: on PostgreSQL a fresh one of the server, else the embedded database as the
 * platform opens it in its data directory, committing durably (its default).
 */
async function benchDatabase(serverUrl: string | undefined, dataDir: string): Promise<TestDatabase> {
  if (serverUrl !== undefined) return createTestDatabase(serverUrl);
  const handle = await openDatabase({ kind: "embedded", dataDir });
  return { ...handle, url: undefined, destroy: () => handle.close() };
}

/** A fresh database with the bench project and its deployment, for `use`; removed afterwards. */
async function withBench<T>(serverUrl: string | undefined, use: (bench: Bench) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-"));
  const database = await benchDatabase(serverUrl, dataDir);
  try {
    await ensureTestProject(database.db, deps, projectId);
    const deployment = valueOrThrow(
      await createDeployment(database.db, deps, { projectId, manifest, bundle: await bundleConfig(source) }),
    );
    return await use({ database, deploymentId: deployment.id, dataDir });
  } finally {
    await database.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * An event sent to ten subscribed workflows of one step each, beside one single-step execution
 * started by a run: the send's own time (its transaction starts all ten), and the time until the
 * last of the ten has finished, medians of `engineRuns`.
 */
async function measureFanOut(bench: Bench): Promise<string> {
  const sends: number[] = [];
  const fanned: number[] = [];
  const singles: number[] = [];
  for (let run = 0; run < engineRuns; run++) {
    const started = performance.now();
    const sent = valueOrThrow(
      await sendEvent(
        bench.database.db,
        { ...deps, endStatementParts },
        { projectId, name: "bench.fanout", data: { run }, source: { kind: "api" } },
      ),
    );
    sends.push(performance.now() - started);
    for (const execution of sent.executions) await finished(bench, execution.executionId);
    fanned.push(performance.now() - started);
    singles.push((await runOnce(bench, "single")).totalMs);
  }
  return `event fan-out to ${fanOut} workflows: send ${median(sends).toFixed(2)} ms, all ${fanOut} finished ${median(fanned).toFixed(0)} ms; one single-step execution ${median(singles).toFixed(0)} ms (medians of ${engineRuns} runs)`;
}

/**
 * A child invocation as its parent sees it (from a step before `ctx.invoke` to a step after it:
 * the child's start, its one step, its end and the parent's resumption), beside one single-step
 * execution started by a run, medians of `engineRuns`.
 */
async function measureInvoke(bench: Bench): Promise<string> {
  const invokes: number[] = [];
  const singles: number[] = [];
  for (let run = 0; run < engineRuns; run++) {
    invokes.push(Number((await finished(bench, await startRun(bench, "invoker"))).output));
    singles.push((await runOnce(bench, "single")).totalMs);
  }
  return `child invocation (parent's view, invoke to resumed): ${median(invokes).toFixed(1)} ms; one single-step execution ${median(singles).toFixed(0)} ms (medians of ${engineRuns} runs)`;
}

/** One execution run to its end by a worker started for it: the sandbox and the plans are warm afterwards. */
export async function finishedOne(bench: Bench): Promise<void> {
  const worker = await start(bench);
  try {
    await finished(bench, (await enqueue(bench, "single", 1))[0] ?? "");
  } finally {
    await worker.stop();
  }
}

/** Runs every engine benchmark on one database and returns printable lines. */
export function benchEngine(serverUrl: string | undefined): Promise<string[]> {
  return withBench(serverUrl, async (bench) => {
    const lines: string[] = [];
    const worker = await start(bench);
    const running = { ...bench, localStarts: worker.localStarts };
    try {
      // Claimed: the worker learns the project's account from its first claim.
      await finished(running, await startRun(running, "single"));
      const trivial = await runSeveral(running, "trivial40");
      const fib = await runSeveral(running, "fib10");
      // Measured last, warm: the first executions of a worker pay for what it has not compiled yet.
      const fixed = await runSeveral(running, "single");
      lines.push(
        `single     overhead ${fixed.overheadMs.toFixed(2)} ms: an execution of one step, from its start by workflows.run to its end (median of ${engineRuns} runs)`,
      );
      lines.push(stepLine("trivial40", 40, trivial, fixed.overheadMs));
      lines.push(stepLine("fib10", 10, fib, fixed.overheadMs));
      lines.push(await measureFanOut(running));
      lines.push(await measureInvoke(running));
    } finally {
      await worker.stop();
    }
    lines.push(formatDrain(await measureDrain(bench)));
    return lines;
  });
}
