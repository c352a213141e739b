import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startPlatform } from "@weft/server";
import { type Database, executions, reduceMemory } from "@weft/server/internals";
import {
  createTestDatabase,
  deployManifest,
  executionCount,
  executionsExisting,
  freePort,
  localPlatformEnv,
} from "@weft/testing";
import { and, count, eq, inArray } from "drizzle-orm";
import { startBaselineServer } from "./baseline-server.ts";
import { startDurableFloor } from "./durable-floor.ts";
import { pruneContinuously, seedFinishedHistory } from "./history-backlog.ts";
import { finishedBetween, sampleOldestWait, type WaitSampler } from "./queue-readings.ts";

/**
 * The server side of the ingress benchmark, in its own process so that the load generator does not
 * share its event loop. `baseline` serves the bare node:http 202; `floor-embedded` and
 * `floor-postgres <url>` the durable floor (`durable-floor.ts`); `embedded` and `postgres <url>`
 * serve Weft (ingress and API roles, no worker, so the executions stay as rows to count) with one
 * webhook deployed; `embedded-worker` serves Weft as `npm start` does (every role, the embedded
 * database it opens itself, the default configuration) with a webhook whose workflow runs one short
 * step, and `postgres-worker <url>` the same on a fresh database of that server. Prints one JSON line
 * `{url}` once it serves. Over IPC it answers `{ids}` with `{committed, acknowledgedCommitted}`: rows
 * in total, and how many of those ids exist; `{seed}` by inserting that many expired executions (or,
 * with `history`, executions finished yesterday that went through the queue); `{prune: "start" |
 * "stop"}` by starting or stopping their deletion, answering how many went; `{settle}` once no
 * execution is queued or running; `{finished: [from, to]}` with how many ended between those epoch
 * milliseconds; `{waits: "start" | "stop"}` by sampling the oldest ready execution's wait, answering
 * the longest and the last.
 */
export type BenchServerMessage =
  | { ids: string[] }
  | { seed: number; history?: boolean }
  | { prune: "start" | "stop" }
  | { settle: true }
  | { finished: [number, number] }
  | { waits: "start" | "stop" };
const [mode = "baseline", postgresUrl] = process.argv.slice(2);
export const benchProjectId = "prj_01jbenchingress0000000000000";

const oneStepWorkflow = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [workflow({ name: "ingest", async run(input: unknown, ctx) {
    return ctx.step("record", () => ({ received: input !== undefined }));
  } })],
});
`;

/** Resolves once no execution of the bench project is queued or running (the worker has drained what the load left). */
async function settled(db: Database): Promise<void> {
  for (;;) {
    const [row] = await db
      .select({ open: count() })
      .from(executions)
      .where(and(eq(executions.projectId, benchProjectId), inArray(executions.status, ["queued", "running"])));
    if ((row?.open ?? 0) === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

if (mode === "baseline") {
  const server = await startBaselineServer();
  process.stdout.write(`${JSON.stringify({ url: server.url })}\n`);
  process.once("SIGTERM", () => void server.close().then(() => process.exit(0)));
} else if (mode === "floor-embedded" || mode === "floor-postgres") {
  const dataDir = mkdtempSync(join(tmpdir(), "weft-floor-"));
  const floor = await startDurableFloor(
    mode === "floor-embedded" || postgresUrl === undefined ? { dataDir } : { postgresUrl },
  );
  process.stdout.write(`${JSON.stringify({ url: floor.url })}\n`);
  process.once("SIGTERM", () => {
    void floor.close().then(() => {
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
  });
} else {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-"));
  const withWorker = mode === "embedded-worker" || mode === "postgres-worker";
  const config = loadConfig({
    ...localPlatformEnv(port, dataDir),
    WEFT_LOG_LEVEL: "warn",
    // Without a worker the queue only grows: its delay must not make ingress refuse the load.
    ...(withWorker ? {} : { WEFT_ROLES: "api,ingress", WEFT_MAX_QUEUE_DELAY: "3600" }),
  });
  const ownDatabase =
    mode === "embedded-worker"
      ? undefined
      : await createTestDatabase(mode.startsWith("postgres") ? postgresUrl : false, {
          embeddedDataDir: dataDir,
        });
  const platform = await startPlatform(config, ownDatabase === undefined ? {} : { database: ownDatabase });
  // As npm start's bootstrap does once the platform serves.
  if (withWorker) reduceMemory();
  const database = platform.context.database;
  const weft = { platform, database };
  const deploymentId = await deployManifest(
    weft,
    benchProjectId,
    { version: 1, workflows: [{ name: "ingest" }], webhooks: [{ name: "orders", workflow: "ingest" }] },
    withWorker ? { configSource: oneStepWorkflow } : {},
  );
  process.stdout.write(`${JSON.stringify({ url: `${config.baseUrl}/triggers/webhooks/${benchProjectId}/orders` })}\n`);
  let pruning: ReturnType<typeof pruneContinuously> | undefined;
  let waits: WaitSampler | undefined;
  process.on("message", (message: BenchServerMessage) => {
    void (async () => {
      if ("seed" in message) {
        await seedFinishedHistory(database.db, {
          projectId: benchProjectId,
          deploymentId,
          count: message.seed,
          ...(message.history === true ? { finishedDaysAgo: 1, throughQueue: true } : {}),
        });
        process.send?.({ seeded: message.seed });
      } else if ("settle" in message) {
        await settled(database.db);
        process.send?.({ settled: true });
      } else if ("finished" in message) {
        process.send?.({ finished: await finishedBetween(database.db, benchProjectId, ...message.finished) });
      } else if ("waits" in message) {
        if (message.waits === "start") waits = sampleOldestWait(database.db, benchProjectId);
        process.send?.(message.waits === "stop" && waits !== undefined ? await waits.stop() : {});
      } else if ("prune" in message) {
        if (message.prune === "start") pruning = pruneContinuously(database.db);
        process.send?.(message.prune === "stop" && pruning !== undefined ? await pruning.stop() : {});
      } else {
        const committed = await executionCount(weft, benchProjectId);
        const acknowledgedCommitted = await executionsExisting(weft, message.ids);
        process.send?.({ committed, acknowledgedCommitted });
      }
    })();
  });
  process.once("SIGTERM", () => {
    void (async () => {
      await platform.stop();
      if (ownDatabase !== undefined) await ownDatabase.destroy();
      rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    })();
  });
}
