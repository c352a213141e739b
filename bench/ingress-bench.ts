import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { defaultMaxQueueDelaySeconds } from "@weft/server/internals";
import { coreCount, formatLoad, type LoadResult, measureLoad } from "./http-load.ts";
import type { BenchServerMessage } from "./ingress-bench-server.ts";
import { median } from "./median.ts";
import { formatMiB, idlePlatformRss, idleTargetBytes, sampleRss } from "./resident-memory.ts";

/**
 * The ingress benchmark: webhook POSTs (no secret, a small JSON body) at increasing concurrency,
 * against a bare node:http server answering 202 (the baseline) and against Weft on each database,
 * each server in its own process. Every acknowledged webhook must be a committed execution row: the
 * execution ids read from the 202s are looked up after the run.
 */
export interface IngressBenchOptions {
  concurrencies: number[];
  durationSeconds: number;
  /** The PostgreSQL server to run on besides the embedded database, when there is one. */
  postgresUrl: string | undefined;
  /** Expired executions seeded before the retention run (webhook p99 while they are deleted). */
  retentionBacklog: number;
  write: (line: string) => void;
}

const webhookBody = JSON.stringify({ event: "order.created", orderId: 1234, amount: 42.5 });

interface BenchServer {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startServer(args: string[]): Promise<BenchServer> {
  const child = fork(fileURLToPath(new URL("./ingress-bench-server.ts", import.meta.url)), args, {
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  if (child.stdout === null) throw new Error("the bench server has no stdout");
  const [line] = (await Promise.race([
    once(createInterface({ input: child.stdout }), "line"),
    once(child, "exit").then(() => {
      throw new Error(`the ${args[0]} bench server exited before serving`);
    }),
  ])) as [string];
  const { url } = JSON.parse(line) as { url: string };
  return {
    url,
    child,
    stop: async () => {
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

function load(url: string, connections: number, options: IngressBenchOptions, extra: object = {}): Promise<LoadResult> {
  return measureLoad({
    url,
    method: "POST",
    connections,
    durationSeconds: options.durationSeconds,
    headers: { "content-type": "application/json" },
    body: webhookBody,
    ...extra,
  });
}

function peak(results: LoadResult[]): LoadResult {
  return results.reduce((best, result) => (result.requestsPerSecond > best.requestsPerSecond ? result : best));
}

async function ask<Reply>(server: BenchServer, message: BenchServerMessage): Promise<Reply> {
  const answer = once(server.child, "message");
  server.child.send(message);
  const [reply] = (await answer) as [Reply];
  return reply;
}

function verify(server: BenchServer, ids: string[]): Promise<{ committed: number; acknowledgedCommitted: number }> {
  return ask(server, { ids });
}

/**
 * The webhook p99 at the same half-peak rate while the retention task deletes a backlog of expired
 * executions back to back (its worst case: the worker pauses between passes). Flat means it stays
 * within the noise of the run without deletion.
 */
async function benchRetention(
  server: BenchServer,
  label: string,
  before: { connections: number; rate: number; p99Ms: number },
  options: IngressBenchOptions,
): Promise<void> {
  const seededAt = performance.now();
  await ask(server, { seed: options.retentionBacklog });
  const seedSeconds = (performance.now() - seededAt) / 1000;
  await ask(server, { prune: "start" });
  const during = await load(server.url, before.connections, options, { overallRate: before.rate });
  const deleted = await ask<{ executions: number; spans: number }>(server, { prune: "stop" });
  options.write(formatLoad(`webhook ${label} c=${before.connections} @${before.rate}/s, deleting`, during));
  options.write(
    `  ${label}: retention deleted ${deleted.executions} executions and ${deleted.spans} spans during the run ` +
      `(${(deleted.executions / options.durationSeconds).toFixed(0)}/s; ${options.retentionBacklog} seeded in ${seedSeconds.toFixed(1)} s); ` +
      `p99 ${during.p99Ms.toFixed(1)} ms while deleting vs ${before.p99Ms.toFixed(1)} ms without (${(during.p99Ms / before.p99Ms).toFixed(2)}x)`,
  );
}

/** The durable floor's peak on one database (`durable-floor.ts`), at the same concurrencies. */
async function benchFloor(label: string, args: string[], options: IngressBenchOptions): Promise<LoadResult> {
  const server = await startServer(args);
  const results: LoadResult[] = [];
  try {
    for (const connections of options.concurrencies) {
      const result = await load(server.url, connections, options);
      options.write(formatLoad(`durable floor ${label} c=${connections}`, result));
      results.push(result);
    }
  } finally {
    await server.stop();
  }
  return peak(results);
}

async function benchWeft(
  label: string,
  args: string[],
  baselinePeak: LoadResult,
  floorPeak: LoadResult,
  options: IngressBenchOptions,
): Promise<void> {
  const server = await startServer(args);
  try {
    const idle = sampleRss(server.child.pid).stop();
    const memory = sampleRss(server.child.pid);
    const acknowledged: string[] = [];
    const onBody = (body: string) => {
      const ids = (JSON.parse(body) as { executionIds?: string[] }).executionIds;
      if (ids !== undefined) acknowledged.push(...ids);
    };
    const results: LoadResult[] = [];
    for (const connections of options.concurrencies) {
      const result = await load(server.url, connections, options, { onBody });
      options.write(formatLoad(`webhook ${label} c=${connections}`, result));
      results.push(result);
    }
    const peakRss = memory.stop();
    options.write(
      `  ${label}: resident memory of the server ${formatMiB(idle)} before the load, ${formatMiB(peakRss)} at most under it`,
    );
    const top = peak(results);
    const halfRate = Math.max(1, Math.floor(top.requestsPerSecond / 2));
    const peakConnections = options.concurrencies[results.indexOf(top)] ?? 1;
    const half = await load(server.url, peakConnections, options, { onBody, overallRate: halfRate });
    options.write(formatLoad(`webhook ${label} c=${peakConnections} @${halfRate}/s`, half));
    options.write(
      `  ${label}: peak ${top.requestsPerSecond.toFixed(0)} req/s = ${((top.requestsPerSecond / floorPeak.requestsPerSecond) * 100).toFixed(1)} % of the durable floor's ${floorPeak.requestsPerSecond.toFixed(0)} req/s (target ≥ 70 %)`,
    );
    const { committed, acknowledgedCommitted } = await verify(server, acknowledged);
    if (options.retentionBacklog > 0) {
      await benchRetention(server, label, { connections: peakConnections, rate: halfRate, p99Ms: half.p99Ms }, options);
    }
    const ratio = top.requestsPerSecond / baselinePeak.requestsPerSecond;
    options.write(
      `  ${label}: peak ${top.requestsPerSecond.toFixed(0)} req/s = ${(ratio * 100).toFixed(1)} % of node:http (target ≥ 30 %); ` +
        `p99 at half the peak rate ${half.p99Ms.toFixed(1)} ms (target ≤ 50 ms)`,
    );
    // What 30 % would take: the machine's cores, shared by server, database and load generator, can
    // serve that rate only if a request costs at most this much CPU in all.
    const targetRate = baselinePeak.requestsPerSecond * 0.3;
    const budgetMicros = (coreCount() * 1_000_000) / targetRate;
    options.write(
      `  ${label}: at its peak a webhook costs ${top.cpu.machineMicros.toFixed(0)} µs of CPU (server and database ${(top.cpu.machineMicros - top.cpu.loadGeneratorMicros).toFixed(0)}, load generator ${top.cpu.loadGeneratorMicros.toFixed(0)}); ` +
        `${targetRate.toFixed(0)} req/s on ${coreCount()} cores allows at most ${budgetMicros.toFixed(0)} µs`,
    );
    // A run stops with requests in flight: those commit but their 202 is never read, so there may be
    // more rows than 202s read, by at most the connections open when each run ended.
    options.write(
      `  ${label}: 202s read ${acknowledged.length}, committed ${acknowledgedCommitted} of them (${
        acknowledgedCommitted === acknowledged.length ? "all" : "SOME LOST"
      }); ${committed} rows in all, ${committed - acknowledged.length} from requests in flight when a run stopped`,
    );
  } finally {
    await server.stop();
  }
}

export async function runIngressBench(options: IngressBenchOptions): Promise<void> {
  options.write(
    `Ingress: webhook POST (small JSON, no secret), concurrency ${options.concurrencies.join(", ")}, ${options.durationSeconds} s each, each server in its own process`,
  );
  const idle = await idlePlatformRss();
  options.write(
    `Resident memory of npm start at rest (every role, embedded database, no sandbox running): ${formatMiB(idle)} (target < ${formatMiB(idleTargetBytes)})`,
  );
  const baseline = await startServer(["baseline"]);
  const results: LoadResult[] = [];
  try {
    for (const connections of options.concurrencies) {
      const result = await load(baseline.url, connections, options);
      options.write(formatLoad(`node:http 202 c=${connections}`, result));
      results.push(result);
    }
  } finally {
    await baseline.stop();
  }
  const embeddedFloor = await benchFloor("embedded", ["floor-embedded"], options);
  await benchWeft("embedded", ["embedded"], peak(results), embeddedFloor, options);
  if (options.postgresUrl !== undefined) {
    const postgresFloor = await benchFloor("postgres", ["floor-postgres", options.postgresUrl], options);
    await benchWeft("postgres", ["postgres", options.postgresUrl], peak(results), postgresFloor, options);
  } else {
    options.write("  postgres: skipped (set WEFT_TEST_DATABASE_URL to a PostgreSQL server to include it)");
  }
}

export interface WorkerWebhookOptions {
  concurrencies: number[];
  durationSeconds: number;
  /** Finished executions seeded between the two rounds on the embedded database. */
  history: number;
  /** Measurements per concurrency in each round, taken in turn; the median one is the round's figure. */
  repeats: number;
  /** The PostgreSQL server to run on besides the embedded database, when there is one. */
  postgresUrl: string | undefined;
  write: (line: string) => void;
}

/** One load window against a platform whose worker runs: what was acknowledged, refused and finished in it. */
interface WorkerMeasurement {
  load: LoadResult;
  acknowledgedPerSecond: number;
  finishedPerSecond: number;
  refusedPerSecond: number;
  /** Finished in the window over acknowledged in it. */
  shareFinished: number;
  /** The longest the oldest ready execution had waited at any reading during the window. */
  longestWaitMs: number;
}

function formatWorkerMeasurement(name: string, measured: WorkerMeasurement): string {
  return (
    `${name.padEnd(34)} acknowledged ${measured.acknowledgedPerSecond.toFixed(0).padStart(5)}/s   finished ${measured.finishedPerSecond.toFixed(0).padStart(5)}/s` +
    `   share finished ${(measured.shareFinished * 100).toFixed(0).padStart(3)} %   refused ${measured.refusedPerSecond.toFixed(0).padStart(5)}/s` +
    `   oldest ready wait ${(measured.longestWaitMs / 1000).toFixed(1)} s   p99 ${measured.load.p99Ms.toFixed(0)} ms`
  );
}

async function measureWithWorker(
  server: BenchServer,
  connections: number,
  durationSeconds: number,
): Promise<WorkerMeasurement> {
  await ask(server, { settle: true });
  await ask(server, { waits: "start" });
  const from = Date.now();
  const load = await measureLoad({
    url: server.url,
    method: "POST",
    connections,
    durationSeconds,
    headers: { "content-type": "application/json" },
    body: webhookBody,
  });
  const to = Date.now();
  const { longestMs } = await ask<{ longestMs: number }>(server, { waits: "stop" });
  const { finished } = await ask<{ finished: number }>(server, { finished: [from, to] });
  const seconds = (to - from) / 1000;
  return {
    load,
    acknowledgedPerSecond: load.ok / seconds,
    finishedPerSecond: finished / seconds,
    refusedPerSecond: load.refused / seconds,
    shareFinished: load.ok === 0 ? 1 : Math.min(1, finished / load.ok),
    longestWaitMs: longestMs,
  };
}

/**
 * One round: `repeats` passes over the concurrencies, each measurement after the worker has drained
 * what the previous one queued; per concurrency, the measurement with the median finished rate. At
 * one connection a measurement swings by a third from one to the next on two cores (where the
 * scheduler puts the server, the sandbox and the load generator), so one alone says little.
 */
async function webhookRound(
  server: BenchServer,
  label: string,
  options: WorkerWebhookOptions,
): Promise<Map<number, WorkerMeasurement>> {
  const measured = new Map<number, WorkerMeasurement[]>();
  for (let pass = 1; pass <= options.repeats; pass++) {
    for (const connections of options.concurrencies) {
      const result = await measureWithWorker(server, connections, options.durationSeconds);
      options.write(formatWorkerMeasurement(`${label} c=${connections} #${pass}`, result));
      measured.set(connections, [...(measured.get(connections) ?? []), result]);
    }
  }
  const medians = new Map<number, WorkerMeasurement>();
  for (const [connections, results] of measured) {
    const rate = median(results.map((result) => result.finishedPerSecond));
    const middle = results.reduce((best, result) =>
      Math.abs(result.finishedPerSecond - rate) < Math.abs(best.finishedPerSecond - rate) ? result : best,
    );
    medians.set(connections, middle);
  }
  return medians;
}

/** The round's medians against the targets: all finished or refused, no fall at the top concurrency, 600/s there embedded. */
function writeWorkerTargets(label: string, round: Map<number, WorkerMeasurement>, options: WorkerWebhookOptions): void {
  for (const [connections, measured] of round) {
    const kept = measured.shareFinished >= 0.95 || measured.refusedPerSecond > 0;
    options.write(
      `  ${formatWorkerMeasurement(`${label} c=${connections}, median`, measured)}   ${kept ? "keeps up or refuses" : "FALLS BEHIND without refusing"} (target: ≥ 95 % finished, or refusals)`,
    );
  }
  const top = Math.max(...options.concurrencies);
  const below = options.concurrencies.filter((connections) => connections < top).at(-1);
  const atTop = round.get(top);
  const atBelow = below === undefined ? undefined : round.get(below);
  if (atTop !== undefined && atBelow !== undefined) {
    options.write(
      `  ${label}: finished ${atTop.finishedPerSecond.toFixed(0)}/s at c=${top} against ${atBelow.finishedPerSecond.toFixed(0)}/s at c=${below} ` +
        `(${atTop.finishedPerSecond >= atBelow.finishedPerSecond * 0.95 ? "does not fall" : "FALLS"}; target: never below)`,
    );
  }
  if (atTop !== undefined) {
    const waited = atTop.longestWaitMs / 1000;
    options.write(
      `  ${label}: the oldest ready execution waited ${waited.toFixed(1)} s at c=${top} (target: refused before it waits past WEFT_MAX_QUEUE_DELAY, ${defaultMaxQueueDelaySeconds} s${waited > defaultMaxQueueDelaySeconds ? "; MISSED" : ""})`,
    );
  }
  if (atTop !== undefined && label.startsWith("embedded")) {
    options.write(`  ${label}: finished ${atTop.finishedPerSecond.toFixed(0)}/s at c=${top} (target ≥ 600/s)`);
  }
}

/**
 * Webhooks against the default configuration, as `npm start` runs it: every role in one process,
 * the worker running each webhook's workflow (one short step) while the load goes on; on the
 * embedded database, then on PostgreSQL when one is set. Each window counts what was acknowledged,
 * what was refused, what finished and how long the oldest ready execution waited. On the embedded
 * database the round is repeated after `history` executions that went through the queue and
 * finished, with the ratio of the two rounds' acknowledged rates at each concurrency.
 */
export async function runWorkerWebhookBench(options: WorkerWebhookOptions): Promise<void> {
  options.write(
    `Webhooks with the worker running (npm start's defaults: every role in one process, one-step workflow), concurrency ${options.concurrencies.join(", ")}, ${options.durationSeconds} s each`,
  );
  const server = await startServer(["embedded-worker"]);
  try {
    const fresh = await webhookRound(server, "embedded", options);
    writeWorkerTargets("embedded", fresh, options);
    const seededAt = performance.now();
    await ask(server, { seed: options.history, history: true });
    options.write(
      `  seeded ${options.history} finished executions (queued, leased, finished) in ${((performance.now() - seededAt) / 1000).toFixed(1)} s`,
    );
    const aged = await webhookRound(server, `embedded, ${options.history} history`, options);
    for (const connections of options.concurrencies) {
      const before = fresh.get(connections);
      const after = aged.get(connections);
      if (before === undefined || after === undefined) continue;
      const slower = 1 - after.acknowledgedPerSecond / before.acknowledgedPerSecond;
      options.write(
        `  c=${connections}, medians of ${options.repeats}: acknowledged ${before.acknowledgedPerSecond.toFixed(0)} → ${after.acknowledgedPerSecond.toFixed(0)}/s, ` +
          `finished ${before.finishedPerSecond.toFixed(0)} → ${after.finishedPerSecond.toFixed(0)}/s, ` +
          `${Math.abs(slower * 100).toFixed(1)} % ${slower >= 0 ? "slower" : "faster"} after ${options.history} executions (target at most 20 % slower), ` +
          `p99 ${before.load.p99Ms.toFixed(1)} → ${after.load.p99Ms.toFixed(1)} ms`,
      );
    }
  } finally {
    await server.stop();
  }
  if (options.postgresUrl === undefined) {
    options.write("  postgres: skipped (set WEFT_TEST_DATABASE_URL to a PostgreSQL server to include it)");
    return;
  }
  const postgres = await startServer(["postgres-worker", options.postgresUrl]);
  try {
    writeWorkerTargets("postgres", await webhookRound(postgres, "postgres", options), options);
  } finally {
    await postgres.stop();
  }
}
