import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startPlatform } from "@weft/server";
import {
  createIdGenerator,
  type Database,
  enqueueExecution,
  executions,
  systemClock,
  valueOrThrow,
} from "@weft/server/internals";
import { createTestDatabase, deployManifest, freePort, localPlatformEnv } from "@weft/testing";
import { and, count, eq, inArray, max, min } from "drizzle-orm";

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
const singleStep = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [workflow({ name: "single", async run(_input: unknown, ctx) {
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
            workflow: "single",
            input: {},
            trigger: { kind: "api" },
          }),
        );
      }
    });
  }
}

async function drainWindow(db: Database, total: number): Promise<{ seconds: number }> {
  for (;;) {
    const [done] = await db
      .select({ n: count(), first: min(executions.startedAt), last: max(executions.finishedAt) })
      .from(executions)
      .where(and(eq(executions.projectId, projectId), inArray(executions.status, ["succeeded", "failed"])));
    if ((done?.n ?? 0) >= total && done?.first != null && done.last != null) {
      return { seconds: (done.last.getTime() - done.first.getTime()) / 1000 };
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Queues `total` executions on a fresh database (embedded, or on the PostgreSQL server at `postgresUrl`) and drains them. */
export async function platformDrain(postgresUrl: string | undefined, total: number): Promise<PlatformDrain> {
  const dataDir = mkdtempSync(join(tmpdir(), "weft-drain-"));
  const serverDatabase = postgresUrl === undefined ? undefined : await createTestDatabase(postgresUrl);
  try {
    const env = {
      ...localPlatformEnv(await freePort(), dataDir),
      WEFT_LOG_LEVEL: "warn",
      ...(serverDatabase?.url === undefined ? {} : { DATABASE_URL: serverDatabase.url }),
    };
    const queueing = await startPlatform(loadConfig({ ...env, WEFT_ROLES: "api,ingress" }));
    try {
      const database = queueing.context.database;
      const deploymentId = await deployManifest(
        { platform: queueing, database },
        projectId,
        { version: 1, workflows: [{ name: "single" }] },
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
