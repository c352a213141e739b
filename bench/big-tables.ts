import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, startPlatform } from "@weft/server";
import { claim, executions } from "@weft/server/internals";
import {
  createTestDatabase,
  createTestIdentity,
  deployManifest,
  ensureTestProject,
  freePort,
  localPlatformEnv,
} from "@weft/testing";
import { inArray, sql } from "drizzle-orm";
import { type Bench, enqueue, finishedOne, manifest, measureDrain, projectId, source } from "./engine.ts";
import { seedFinishedHistory } from "./history-backlog.ts";
import { formatLoad, type LoadResult, measureLoad } from "./http-load.ts";
import { median } from "./median.ts";

/**
 * Big tables: the engine and the lists on PostgreSQL with an empty history and with `history`
 * finished executions (each with its trigger and execution spans, passed through the queue as the
 * engine moves them), each on a fresh database: claim latency, the drain of new executions, the
 * webhook p99, and the first pages of `workflows.listExecutions` and `traces.list` over HTTP RPC.
 */
export interface BigTablesOptions {
  postgresUrl: string;
  history: number;
  durationSeconds: number;
  write: (line: string) => void;
}

interface Figures {
  claimMs: number;
  drainPerSecond: number;
  webhook: LoadResult;
  listExecutions: LoadResult;
  tracesList: LoadResult;
}

const owner = "big-tables@bench.weft.invalid";
const claims = Number(process.env.BENCH_CLAIMS ?? 200);
const webhookConnections = 16;

/** The median time of one `claim` of one due execution, each claimed execution then marked finished. */
async function claimLatency(bench: Bench): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < claims; run += 1) {
    const ids = await enqueue(bench, "single", 1);
    const started = performance.now();
    const { executions: claimed } = await claim(bench.database.db, {
      workerId: "wrk_bench",
      now: new Date(),
      leaseMs: 30_000,
      limit: 1,
      workspaceSlots: 50,
    });
    times.push(performance.now() - started);
    if (claimed.length !== 1) throw new Error(`claim leased ${claimed.length} executions, expected 1`);
    await bench.database.db
      .update(executions)
      .set({ status: "succeeded", finishedAt: new Date(), leaseOwner: null, leaseExpiresAt: null })
      .where(inArray(executions.id, ids));
  }
  return median(times);
}

async function measure(options: BigTablesOptions, history: number): Promise<Figures> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-big-"));
  const config = loadConfig({ ...localPlatformEnv(port, dataDir), WEFT_LOG_LEVEL: "warn", WEFT_ROLES: "api,ingress" });
  const database = await createTestDatabase(options.postgresUrl);
  const platform = await startPlatform(config, { database });
  try {
    const identity = await createTestIdentity({ platform }, owner);
    await ensureTestProject(database.db, platform.context, projectId, owner);
    const deploymentId = await deployManifest(
      { platform, database },
      projectId,
      { ...manifest, webhooks: [{ name: "orders", workflow: "single" }] },
      { configSource: source },
    );
    const bench: Bench = { database, deploymentId, dataDir };
    if (history > 0) {
      const seededAt = performance.now();
      await seedFinishedHistory(database.db, {
        projectId,
        deploymentId,
        count: history,
        finishedDaysAgo: 1,
        throughQueue: true,
      });
      // What autovacuum reaches on a table that grew this much: the dead versions of the passage
      // through the queue removed, and statistics that know the table's size.
      await database.db.execute(sql`vacuum analyze executions`);
      await database.db.execute(sql`vacuum analyze spans`);
      options.write(
        `  seeded ${history} finished executions and ${history * 2} spans in ${((performance.now() - seededAt) / 1000).toFixed(1)} s`,
      );
    }
    await finishedOne(bench);
    const drain = await measureDrain(bench);
    const claimMs = await claimLatency(bench);
    const label = history > 0 ? `${history} history` : "empty";
    const webhook = await measureLoad({
      url: `${config.baseUrl}/triggers/webhooks/${projectId}/orders`,
      method: "POST",
      connections: webhookConnections,
      durationSeconds: options.durationSeconds,
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ event: "order.created" }),
    });
    options.write(formatLoad(`webhook ${label} c=${webhookConnections}`, webhook));
    // Both rounds list with statistics that know the rows the drain and the webhooks added, as
    // autovacuum's analyze would by then: the comparison is of history, not of stale statistics.
    await database.db.execute(sql`analyze executions`);
    await database.db.execute(sql`analyze spans`);
    const rpc = (procedure: string, input: object) =>
      measureLoad({
        url: `${config.baseUrl}/rpc/${procedure}`,
        method: "POST",
        connections: 1,
        durationSeconds: options.durationSeconds,
        headers: { "content-type": "application/json", authorization: `Bearer ${identity.credential}` },
        body: JSON.stringify({ json: input }),
      });
    const listExecutions = await rpc("workflows/listExecutions", { projectId });
    options.write(formatLoad(`listExecutions ${label}`, listExecutions));
    const tracesList = await rpc("traces/list", { projectId });
    options.write(formatLoad(`traces.list ${label}`, tracesList));
    return { claimMs, drainPerSecond: drain.perSecond, webhook, listExecutions, tracesList };
  } finally {
    await platform.stop();
    await database.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function ratioLine(name: string, empty: number, big: number, unit: string, higherIsBetter: boolean): string {
  const ratio = big / empty;
  const worse = higherIsBetter ? 1 / ratio : ratio;
  return `  ${name}: ${empty.toFixed(2)} → ${big.toFixed(2)} ${unit} (${ratio.toFixed(2)}x; ${worse <= 1.2 ? "within" : "NOT within"} 20 %)`;
}

export async function runBigTablesBench(options: BigTablesOptions): Promise<void> {
  options.write(
    `Big tables on PostgreSQL: an empty history against ${options.history} finished executions and their spans (server in this process, ${options.durationSeconds} s per load)`,
  );
  const empty = await measure(options, 0);
  const big = await measure(options, options.history);
  options.write(ratioLine("claim latency (median)", empty.claimMs, big.claimMs, "ms", false));
  options.write(ratioLine("drain of new executions", empty.drainPerSecond, big.drainPerSecond, "executions/s", true));
  options.write(
    ratioLine(`webhook p99 at c=${webhookConnections}`, empty.webhook.p99Ms, big.webhook.p99Ms, "ms", false),
  );
  options.write(
    ratioLine("listExecutions first page (p50)", empty.listExecutions.p50Ms, big.listExecutions.p50Ms, "ms", false),
  );
  options.write(ratioLine("traces.list first page (p50)", empty.tracesList.p50Ms, big.tracesList.p50Ms, "ms", false));
}
