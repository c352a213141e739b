import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { testServerUrl } from "@weft/testing";
import { runBigTablesBench } from "./big-tables.ts";
import { runDrainBench } from "./drain-bench.ts";
import { runDurabilityBench } from "./durability-bench.ts";
import { benchEngine } from "./engine.ts";
import { runGroupCommitBench } from "./group-commit-cost.ts";
import { formatLoad, measureLoad } from "./http-load.ts";
import { runIngressBench, runWorkerWebhookBench } from "./ingress-bench.ts";
import { runMemoryBench } from "./memory-bench.ts";
import { runNeighboursBench } from "./neighbours.ts";
import { defaultResultsPath, describeRun, recordPartResults } from "./results-file.ts";
import { runSchedulesBench } from "./schedules.ts";
import { runStudioBench } from "./studio.ts";

/**
 * `npm run bench`: starts a platform in a child process (on the embedded default, or on
 * PostgreSQL when WEFT_TEST_DATABASE_URL is set) and prints throughput and latency of `GET /healthz`
 * and of an authenticated `projects.list` RPC at the same concurrency. The RPC path should stay
 * within 2x of /healthz. Then the workflow engine (see engine.ts) on each database; then the ingress
 * benchmark (`ingress-bench.ts`): webhooks against a bare node:http baseline on each database; then
 * the start-up and memory of `npm start` on a fresh data directory and again (`memory-bench.ts`); then
 * what one webhook's group commit costs in CPU (`group-commit-cost.ts`); then webhooks with the embedded
 * database's commits flushed to disk and without (`durability-bench.ts`); then one tenant's latency
 * while another attacks the sandbox's host side (`neighbours.ts`); then one tenant's
 * `workflows.run` between minute ticks and at a tick of 1 000 schedules (`schedules.ts`).
 *
 * Each part's lines also go to its section of docs/bench-results.md once the part ends
 * (`results-file.ts`), so that file holds the latest figures of every part; `BENCH_RESULTS` names
 * another file, or `none` for a run that writes no file.
 */
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const durationSeconds = Number(process.env.BENCH_SECONDS ?? 5);
const resultsPath = process.env.BENCH_RESULTS === "none" ? undefined : process.env.BENCH_RESULTS || defaultResultsPath;
const run = describeRun(process.env, resultsPath);
/** The lines the part under way has printed, for its section of the results file. */
let partLines: string[] = [];
const write = (line: string) => {
  process.stdout.write(`${line}\n`);
  partLines.push(line);
};
const warmUpSeconds = Number(process.env.BENCH_WARM_UP_SECONDS ?? 2);
const benchParts = [
  "api",
  "engine",
  "ingress",
  "memory",
  "commit",
  "durability",
  "worker",
  "drain",
  "big",
  "studio",
  "neighbours",
  "schedules",
] as const;
/** `BENCH_ONLY=ingress` (or a comma-separated list of the parts above) runs just those parts. */
const only = new Set((process.env.BENCH_ONLY ?? benchParts.join(",")).split(",").map((part) => part.trim()));
for (const part of only) {
  if (!(benchParts as readonly string[]).includes(part)) {
    process.stderr.write(
      `BENCH_ONLY: unknown part "${part}"; expected a comma-separated list of ${benchParts.join(", ")}\n`,
    );
    process.exit(1);
  }
}

/** Runs one part when `BENCH_ONLY` selects it, then records what it printed in the results file. */
async function benchPart(part: (typeof benchParts)[number], measure: () => Promise<void>): Promise<void> {
  if (!only.has(part)) return;
  partLines = [];
  await measure();
  if (resultsPath !== undefined) await recordPartResults(resultsPath, part, run, partLines);
}

async function benchApi(): Promise<void> {
  const server = spawn(process.execPath, [fileURLToPath(new URL("./bench-server.ts", import.meta.url))], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let serverErrors = "";
  server.stderr.on("data", (chunk: Buffer) => {
    serverErrors += chunk.toString();
  });
  try {
    const lines = createInterface({ input: server.stdout });
    const [line] = (await Promise.race([
      once(lines, "line"),
      once(server, "exit").then(() => {
        throw new Error(`the bench server exited before serving: ${serverErrors}`);
      }),
    ])) as [string];
    const { url, token, database } = JSON.parse(line) as { url: string; token: string; database: string };
    write(
      `Weft benchmarks (${database} database, server in its own process, ${connections} connections, ${durationSeconds} s each after ${warmUpSeconds} s of warm-up)`,
    );
    const health = await measureLoad({ url: `${url}/healthz`, connections, durationSeconds, warmUpSeconds });
    write(formatLoad("GET /healthz", health));
    const list = await measureLoad({
      url: `${url}/rpc/projects/list`,
      connections,
      durationSeconds,
      warmUpSeconds,
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ json: {} }),
    });
    write(formatLoad("POST /rpc/projects/list", list));
    const ratio = health.requestsPerSecond / list.requestsPerSecond;
    write(`projects.list throughput is 1/${ratio.toFixed(2)} of /healthz: ${ratio <= 2 ? "within" : "NOT within"} 2x`);
    // Both runs keep every core of this machine busy, so throughput follows the CPU a request costs.
    write(
      `CPU per request, all processes: /healthz ${health.cpu.machineMicros.toFixed(0)} µs, projects.list ${list.cpu.machineMicros.toFixed(0)} µs (${(list.cpu.machineMicros / health.cpu.machineMicros).toFixed(2)}x)`,
    );
  } finally {
    server.kill("SIGTERM");
    await once(server, "exit");
  }
}

await benchPart("api", benchApi);

// The workflow engine, in this process: on the embedded default, and on PostgreSQL when one is set.
const engineDatabases: [string, string | undefined][] = [["embedded", undefined]];
if (process.env.WEFT_TEST_DATABASE_URL) engineDatabases.push(["PostgreSQL", process.env.WEFT_TEST_DATABASE_URL]);
await benchPart("engine", async () => {
  for (const [label, serverUrl] of engineDatabases) {
    write(`Workflow engine (${label} database)`);
    for (const line of await benchEngine(serverUrl)) write(`  ${line}`);
  }
});

await benchPart("ingress", async () => {
  await runIngressBench({
    concurrencies: (process.env.BENCH_INGRESS_CONCURRENCY ?? "1,8,32,64").split(",").map(Number),
    durationSeconds,
    postgresUrl: testServerUrl(),
    retentionBacklog: Number(process.env.BENCH_RETENTION_BACKLOG ?? 200_000),
    write,
  });
});

await benchPart("memory", async () => {
  await runMemoryBench({ write });
});

await benchPart("commit", async () => {
  await runGroupCommitBench({ commits: Number(process.env.BENCH_COMMITS ?? 3000), write });
});

await benchPart("durability", async () => {
  await runDurabilityBench({
    concurrencies: (process.env.BENCH_DURABILITY_CONCURRENCY ?? "1,32").split(",").map(Number),
    workerConnections: 8,
    workerRate: 100,
    durationSeconds,
    write,
  });
});

await benchPart("worker", async () => {
  await runWorkerWebhookBench({
    concurrencies: (process.env.BENCH_WORKER_CONCURRENCY_LEVELS ?? "1,16,64").split(",").map(Number),
    // Longer than WEFT_MAX_QUEUE_DELAY (5 s) and its reading (every second): a shorter window ends
    // before a backlog could be refused, and shows neither the refusals nor the rate they keep.
    durationSeconds: Number(process.env.BENCH_WORKER_SECONDS ?? 15),
    history: Number(process.env.BENCH_HISTORY ?? 100_000),
    repeats: Number(process.env.BENCH_WORKER_REPEATS ?? 3),
    postgresUrl: testServerUrl(),
    write,
  });
});

await benchPart("drain", async () => {
  await runDrainBench({
    jobs: wholeNumber("BENCH_DRAIN_EXECUTIONS", 10_000),
    rounds: wholeNumber("BENCH_DRAIN_ROUNDS", 3),
    postgresUrl: process.env.WEFT_TEST_DATABASE_URL,
    databases: engineDatabases,
    write,
  });
});

await benchPart("big", async () => {
  const postgresUrl = process.env.WEFT_TEST_DATABASE_URL;
  if (postgresUrl === undefined) {
    write("Big tables: skipped (set WEFT_TEST_DATABASE_URL to a PostgreSQL server to include it)");
  } else {
    await runBigTablesBench({
      postgresUrl,
      history: Number(process.env.BENCH_BIG_HISTORY ?? 1_000_000),
      durationSeconds,
      write,
    });
  }
});

await benchPart("studio", async () => {
  const postgresUrl = process.env.WEFT_TEST_DATABASE_URL;
  if (postgresUrl === undefined) {
    write("Studio views: skipped (set WEFT_TEST_DATABASE_URL to a PostgreSQL server to include it)");
  } else {
    await runStudioBench({
      postgresUrl,
      executions: Number(process.env.BENCH_STUDIO_EXECUTIONS ?? 100_000),
      calls: Number(process.env.BENCH_STUDIO_CALLS ?? 200),
      write,
    });
  }
});

/** A whole number of at least 1 from the environment, or the fallback; anything else ends the run naming the variable. */
function wholeNumber(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (Number.isInteger(value) && value >= 1) return value;
  process.stderr.write(`${name}: expected a whole number of at least 1, got "${process.env[name]}"\n`);
  process.exit(1);
}

await benchPart("neighbours", async () => {
  await runNeighboursBench({
    postgresUrl: testServerUrl(),
    phaseSeconds: wholeNumber("BENCH_NEIGHBOURS_SECONDS", 10),
    perSecond: wholeNumber("BENCH_NEIGHBOURS_RATE", 5),
    write,
  });
});

await benchPart("schedules", async () => {
  await runSchedulesBench({
    postgresUrl: testServerUrl(),
    perSecond: wholeNumber("BENCH_SCHEDULES_RATE", 20),
    write,
  });
});
