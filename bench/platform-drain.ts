import { fork } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig, startPlatform } from "@weft/server";
import {
  createIdGenerator,
  type Database,
  enqueueExecution,
  executions,
  systemClock,
  unfinishedCondition,
  valueOrThrow,
} from "@weft/server/internals";
import { createTestDatabase, deployManifest, freePort, localPlatformEnv } from "@weft/testing";
import { and, count, eq, max, min } from "drizzle-orm";

/**
 * The drain of queued single-step executions by the platform as `npm start` runs it: every role in
 * one process, the default configuration (worker concurrency, workspace share, the sandbox it picks)
 * and a deployed workflow. The executions are queued by a platform without the worker role, which
 * then stops; the drain runs from the first execution's start to the last one's end.
 */
export interface PlatformDrain {
  seconds: number;
  perSecond: number;
  concurrency: number;
  workspaceShare: number;
  /** CPU time of the platform's process (not its sandboxes) per execution, from its start to the drain's end, in microseconds. */
  cpuMicros: number;
}

const projectId = "prj_01jbenchdrain00000000000000";
const workflowName = "single";
const singleStep = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [workflow({ name: "${workflowName}", async run(_input: unknown, ctx) {
    return ctx.step("only", () => 1);
  } })],
});
`;
const deps = { clock: systemClock, ids: createIdGenerator(systemClock) };

async function enqueueMany(db: Database, deploymentId: string, total: number): Promise<void> {
  for (let queued = 0; queued < total; queued += 500) {
    const batch = Math.min(500, total - queued);
    await db.transaction(async (tx) => {
      for (let i = 0; i < batch; i++) {
        valueOrThrow(
          await enqueueExecution(tx, deps, {
            projectId,
            deploymentId,
            workflow: workflowName,
            input: {},
            trigger: { kind: "api" },
          }),
        );
      }
    });
  }
}

/**
 * Waits until none of the project's executions is left unfinished, then reads the window from the
 * first start to the last end. The wait shares the platform's thread, so each poll is a probe of
 * the small indexes of unfinished executions, not a count of the finished ones.
 */
async function drainWindow(db: Database, total: number): Promise<{ seconds: number }> {
  for (;;) {
    const unfinished = await db
      .select({ id: executions.id })
      .from(executions)
      .where(and(eq(executions.projectId, projectId), unfinishedCondition))
      .limit(1);
    if (unfinished.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const [done] = await db
    .select({ n: count(), first: min(executions.startedAt), last: max(executions.finishedAt) })
    .from(executions)
    .where(eq(executions.projectId, projectId));
  if (done === undefined || done.n !== total) {
    throw new Error(`the drain ended with ${done?.n ?? 0} of ${total} executions`);
  }
  if (done.first === null || done.last === null) throw new Error("the drain's executions have no start or no end");
  return { seconds: (done.last.getTime() - done.first.getTime()) / 1000 };
}

/**
 * Queues `total` executions on a fresh database (embedded, or on the PostgreSQL server at
 * `postgresUrl`) and drains them in this process.
 */
export async function drainInThisProcess(postgresUrl: string | undefined, total: number): Promise<PlatformDrain> {
  const dataDir = mkdtempSync(join(tmpdir(), "weft-drain-"));
  const serverDatabase = postgresUrl === undefined ? undefined : await createTestDatabase(postgresUrl);
  try {
    const env = {
      ...localPlatformEnv(await freePort(), dataDir),
      WEFT_LOG_LEVEL: "warn",
      ...(serverDatabase?.url === undefined ? {} : { DATABASE_URL: serverDatabase.url }),
    };
    // With no worker yet, its backpressure warns of the queue it is told to fill: not news here.
    const queueing = await startPlatform(loadConfig({ ...env, WEFT_ROLES: "api,ingress", WEFT_LOG_LEVEL: "error" }));
    try {
      const database = queueing.context.database;
      const deploymentId = await deployManifest(
        { platform: queueing, database },
        projectId,
        { version: 1, workflows: [{ name: workflowName }] },
        { configSource: singleStep },
      );
      await enqueueMany(database.db, deploymentId, total);
    } finally {
      await queueing.stop();
    }
    const config = loadConfig(env);
    const cpuBefore = process.cpuUsage();
    const draining = await startPlatform(config);
    try {
      const { seconds } = await drainWindow(draining.context.database.db, total);
      const cpu = process.cpuUsage(cpuBefore);
      return {
        seconds,
        perSecond: total / seconds,
        concurrency: config.worker.concurrency,
        workspaceShare: config.worker.workspaceShare,
        cpuMicros: (cpu.user + cpu.system) / total,
      };
    } finally {
      await draining.stop();
    }
  } finally {
    await serverDatabase?.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A drain that has not ended by then is stopped and reported, rather than waited for without end. */
const drainProcessLimitMs = 10 * 60_000;

/**
 * One drain (`drainInThisProcess`) in a process of its own, as `npm start` runs the platform,
 * rather than beside the heaps and pools of the bench's other parts.
 */
export async function platformDrain(postgresUrl: string | undefined, total: number): Promise<PlatformDrain> {
  const child = fork(
    fileURLToPath(new URL("./platform-drain-process.ts", import.meta.url)),
    [postgresUrl ?? "embedded", String(total)],
    { serialization: "advanced" },
  );
  let result: PlatformDrain | undefined;
  child.on("message", (message) => {
    result = message as PlatformDrain;
  });
  const limit = setTimeout(() => child.kill("SIGKILL"), drainProcessLimitMs);
  try {
    // `close` comes after the IPC channel has shut, so a message sent before the exit has arrived.
    const [code, signal] = (await once(child, "close")) as [number | null, NodeJS.Signals | null];
    if (result === undefined) {
      throw new Error(`the drain's process ended (code ${String(code)}, signal ${String(signal)}) without a result`);
    }
    return result;
  } finally {
    clearTimeout(limit);
  }
}
