import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { setTimeout as delay } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import type { ScheduleServerReady } from "./schedules-server.ts";

/**
 * The schedules benchmark (`BENCH_ONLY=schedules`): a platform in its own process whose tenants
 * hold 1 000 every-minute schedules (`schedules-server.ts`), and another tenant calling
 * `workflows.run` at a steady rate through real minute ticks (the platform's scheduler runs on the
 * system clock in its own process, so the part waits for one minute boundary: about two minutes).
 * Prints that tenant's p50 and p99 in the seconds between ticks and in the seconds after a tick,
 * side by side, and with BENCH_SCHEDULES_TRACE=1 the slowest call of each second. Target: p99
 * after the tick at most twice p99 between ticks.
 */
export interface SchedulesBenchOptions {
  /** The PostgreSQL server to run on; the embedded database when undefined. */
  postgresUrl: string | undefined;
  /** `workflows.run` calls per second, sent at a steady pace whatever the answers take. */
  perSecond: number;
  write: (line: string) => void;
}

const targetRatio = 2;
const minuteMs = 60_000;
/** Measured after each minute boundary: the firing of its ticks, and the executions they start. */
const tickWindowMs = 15_000;
/** Measured before the boundary, past the previous tick's window and its executions. */
const betweenWindowMs = 25_000;
/** Calls still unanswered this long after the last one was sent count as failed. */
const answerLimitMs = 30_000;

interface Call {
  sentAt: number;
  ms: number;
  ok: boolean;
}

function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

function summary(calls: readonly Call[]): { p50: number; p99: number; count: number; failed: number } {
  const sorted = calls.map((call) => call.ms).sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    count: calls.length,
    failed: calls.filter((call) => !call.ok).length,
  };
}

async function startServer(postgresUrl: string | undefined) {
  const server = spawn(
    process.execPath,
    [
      fileURLToPath(new URL("./schedules-server.ts", import.meta.url)),
      postgresUrl === undefined ? "embedded" : "postgres",
    ],
    { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, WEFT_TEST_DATABASE_URL: postgresUrl ?? "" } },
  );
  let errors = "";
  server.stderr.on("data", (chunk: Buffer) => {
    errors += chunk.toString();
  });
  const [line] = (await Promise.race([
    once(createInterface({ input: server.stdout }), "line"),
    once(server, "exit").then(() => {
      throw new Error(`the schedules bench server exited before serving: ${errors}`);
    }),
  ])) as [string];
  return { server, ready: JSON.parse(line) as ScheduleServerReady };
}

/** Sends `workflows.run` every `1000 / perSecond` ms from `from` to `until` (epoch ms), each timed on its own. */
async function callSteadily(ready: ScheduleServerReady, perSecond: number, from: number, until: number) {
  const calls: Promise<Call>[] = [];
  const body = JSON.stringify({ json: { projectId: ready.projectId, workflow: "echo", input: { n: 1 } } });
  const headers = { "content-type": "application/json", authorization: `Bearer ${ready.token}` };
  const gapMs = 1000 / perSecond;
  await delay(Math.max(0, from - Date.now()));
  for (let next = from; next < until; next += gapMs) {
    await delay(Math.max(0, next - Date.now()));
    const sentAt = Date.now();
    calls.push(
      fetch(`${ready.url}/rpc/workflows/run`, {
        method: "POST",
        headers,
        body,
        signal: AbortSignal.timeout(answerLimitMs),
      })
        .then(async (response) => {
          await response.arrayBuffer();
          return { sentAt, ms: Date.now() - sentAt, ok: response.ok };
        })
        .catch(() => ({ sentAt, ms: answerLimitMs, ok: false })),
    );
  }
  return Promise.all(calls);
}

/** Executions the scheduling tenants have started this month, as `billing.getPlan` counts them. */
async function scheduledExecutions(ready: ScheduleServerReady): Promise<number> {
  let total = 0;
  for (const { token, workspaceId } of ready.schedulers) {
    const answer = await fetch(`${ready.url}/rpc/billing/getPlan`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ json: { workspaceId } }),
    });
    total += ((await answer.json()) as { json: { used: { executions: number } } }).json.used.executions;
  }
  return total;
}

/** Per second from the boundary, the slowest call sent in it: where the time after a tick goes. */
function slowestBySecond(calls: readonly Call[], boundary: number): string {
  const slowest = new Map<number, number>();
  for (const call of calls) {
    const second = Math.floor((call.sentAt - boundary) / 1000);
    slowest.set(second, Math.max(slowest.get(second) ?? 0, call.ms));
  }
  return [...slowest]
    .sort(([a], [b]) => a - b)
    .map(([second, ms]) => `${second}s:${ms}`)
    .join(" ");
}

export async function runSchedulesBench(options: SchedulesBenchOptions): Promise<void> {
  const { write } = options;
  const { server, ready } = await startServer(options.postgresUrl);
  try {
    // A boundary far enough ahead that the window before it is whole; the schedules may tick before
    // it already, as they do every minute: the window before it is the steady state between ticks.
    const boundary = Math.ceil((Date.now() + betweenWindowMs + 5_000) / minuteMs) * minuteMs;
    const startedBefore = await scheduledExecutions(ready);
    const calls = await callSteadily(ready, options.perSecond, boundary - betweenWindowMs, boundary + tickWindowMs);
    const started = (await scheduledExecutions(ready)) - startedBefore;
    const between = summary(calls.filter((call) => call.sentAt < boundary - 5_000));
    const atTick = summary(calls.filter((call) => call.sentAt >= boundary));
    write(
      `Schedules (${ready.database} database): ${ready.schedules} every-minute schedules of ${ready.schedulers.length} tenants; another tenant's workflows.run at ${options.perSecond}/s`,
    );
    write(`  executions the ticks started during the run: ${started} (${ready.schedules} a minute)`);
    write(`                          p50 ms   p99 ms   calls  failed`);
    const row = (label: string, figures: ReturnType<typeof summary>) =>
      write(
        `  ${label.padEnd(24)}${figures.p50.toFixed(0).padStart(6)}   ${figures.p99.toFixed(0).padStart(6)}   ${String(figures.count).padStart(5)}   ${String(figures.failed).padStart(5)}`,
      );
    row(`between ticks (${betweenWindowMs / 1000 - 5} s)`, between);
    row(`after the tick (${tickWindowMs / 1000} s)`, atTick);
    const ratio = atTick.p99 / between.p99;
    write(
      `  p99 after the tick is ${ratio.toFixed(2)}x p99 between ticks: ${ratio <= targetRatio ? "within" : "NOT within"} the target of ${targetRatio}x`,
    );
    if (process.env.BENCH_SCHEDULES_TRACE === "1")
      write(`  slowest call by second: ${slowestBySecond(calls, boundary)}`);
  } finally {
    server.kill("SIGTERM");
    await once(server, "exit");
  }
}
