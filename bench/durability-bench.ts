import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { closeSync, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { DurabilityServerMessage } from "./durability-bench-server.ts";
import { formatLoad, type LoadResult, measureLoad } from "./http-load.ts";
import { percentile } from "./percentile.ts";

/**
 * The durability benchmark: what flushing each commit of the embedded database to the disk costs.
 * Webhook POSTs against two platforms started side by side as `npm start` runs them, one with
 * `WEFT_EMBEDDED_DURABILITY=full` (the default) and one `relaxed`, taking turns at each concurrency;
 * with the flushes their database made per 202 read. Then each with its worker, at a rate it keeps
 * up with: the flushes per execution a webhook starts, its one step and its end included.
 */
export interface DurabilityBenchOptions {
  concurrencies: number[];
  /** Connections of the run with the worker, and the webhooks a second they send: a rate its worker keeps up with. */
  workerConnections: number;
  workerRate: number;
  durationSeconds: number;
  write: (line: string) => void;
}

const durabilities = ["full", "relaxed"] as const;
const webhookBody = JSON.stringify({ event: "order.created", orderId: 1234, amount: 42.5 });

interface DurabilityServer {
  url: string;
  /** The flushes to disk of its database so far, once none of its executions is open when `settle`. */
  syncs(settle?: boolean): Promise<number>;
  stop(): Promise<void>;
}

async function startServer(args: string[]): Promise<DurabilityServer> {
  const child: ChildProcess = fork(fileURLToPath(new URL("./durability-bench-server.ts", import.meta.url)), args, {
    stdio: ["ignore", "pipe", "inherit", "ipc"],
  });
  if (child.stdout === null) throw new Error("the bench server has no stdout");
  const [line] = (await Promise.race([
    once(createInterface({ input: child.stdout }), "line"),
    once(child, "exit").then(() => {
      throw new Error(`the ${args.join(" ")} bench server exited before serving`);
    }),
  ])) as [string];
  const { url } = JSON.parse(line) as { url: string };
  return {
    url,
    syncs: async (settle = false) => {
      const answer = once(child, "message");
      const message: DurabilityServerMessage = settle ? { settle: true } : { syncs: true };
      child.send(message);
      const [reply] = (await answer) as [{ syncs: number }];
      return reply.syncs;
    },
    stop: async () => {
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

/** One run of webhooks; the flushes it caused per 202 read, counted until its executions ended when it ran `worker`. */
async function measure(
  server: DurabilityServer,
  connections: number,
  options: DurabilityBenchOptions,
  worker?: { rate: number },
): Promise<{ result: LoadResult; acknowledged: number; syncsPerWebhook: number }> {
  let acknowledged = 0;
  const before = await server.syncs();
  const result = await measureLoad({
    url: server.url,
    method: "POST",
    connections,
    durationSeconds: options.durationSeconds,
    headers: { "content-type": "application/json" },
    body: webhookBody,
    ...(worker === undefined ? {} : { overallRate: worker.rate }),
    onBody: (body) => {
      acknowledged += (JSON.parse(body) as { executionIds?: string[] }).executionIds?.length ?? 0;
    },
  });
  const syncs = (await server.syncs(worker !== undefined)) - before;
  return { result, acknowledged, syncsPerWebhook: syncs / Math.max(1, acknowledged) };
}

async function startPair(
  roles: "webhooks" | "worker",
): Promise<Record<(typeof durabilities)[number], DurabilityServer>> {
  const full = await startServer(["full", roles]);
  const relaxed = await startServer(["relaxed", roles]).catch(async (error: unknown) => {
    await full.stop();
    throw error;
  });
  return { full, relaxed };
}

/**
 * What one flush costs on the disk the data dirs are on, now: it blocks the platform's thread for
 * that long, and it is the machine's, not Weft's (a shared or virtual disk varies with its neighbours).
 */
function flushLatency(flushes: number): { p50Ms: number; p99Ms: number } {
  const directory = mkdtempSync(join(tmpdir(), "weft-bench-flush-"));
  const fd = openSync(join(directory, "probe"), "w");
  const page = Buffer.alloc(8192, 1);
  const durations: number[] = [];
  try {
    for (let flush = 0; flush < flushes; flush++) {
      writeSync(fd, page, 0, page.length, (flush % 16) * page.length);
      const started = performance.now();
      fdatasyncSync(fd);
      durations.push(performance.now() - started);
    }
  } finally {
    closeSync(fd);
    rmSync(directory, { recursive: true, force: true });
  }
  return { p50Ms: percentile(durations, 0.5), p99Ms: percentile(durations, 0.99) };
}

export async function runDurabilityBench(options: DurabilityBenchOptions): Promise<void> {
  options.write(
    `Embedded durability: webhook POSTs on WEFT_EMBEDDED_DURABILITY=full (the default) and =relaxed, two platforms as npm start runs them (ingress and API roles) taking turns, ${options.durationSeconds} s each`,
  );
  const latency = flushLatency(300);
  options.write(
    `  an 8 KiB write and fdatasync on this machine's temporary directory: p50 ${latency.p50Ms.toFixed(2)} ms, p99 ${latency.p99Ms.toFixed(2)} ms`,
  );
  const servers = await startPair("webhooks");
  try {
    for (const connections of options.concurrencies) {
      const rates: Partial<Record<(typeof durabilities)[number], number>> = {};
      for (const durability of durabilities) {
        const { result, acknowledged, syncsPerWebhook } = await measure(servers[durability], connections, options);
        rates[durability] = result.requestsPerSecond;
        options.write(formatLoad(`webhook ${durability} c=${connections}`, result));
        options.write(
          `  ${durability} c=${connections}: ${acknowledged} 202s read, ${syncsPerWebhook.toFixed(3)} flushes to disk per 202`,
        );
      }
      options.write(
        `  c=${connections}: full durability serves ${(((rates.full ?? 0) / Math.max(1, rates.relaxed ?? 0)) * 100).toFixed(0)} % of relaxed's webhook rate`,
      );
    }
  } finally {
    await Promise.all(durabilities.map((durability) => servers[durability].stop()));
  }
  options.write(
    `With the worker (every role, a workflow of one step), c=${options.workerConnections} at ${options.workerRate} webhooks/s, flushes counted until every execution ended`,
  );
  const workers = await startPair("worker");
  try {
    for (const durability of durabilities) {
      const { result, acknowledged, syncsPerWebhook } = await measure(
        workers[durability],
        options.workerConnections,
        options,
        { rate: options.workerRate },
      );
      options.write(formatLoad(`webhook+run ${durability} c=${options.workerConnections}`, result));
      options.write(
        `  ${durability}: ${acknowledged} executions, ${syncsPerWebhook.toFixed(3)} flushes to disk per execution`,
      );
    }
  } finally {
    await Promise.all(durabilities.map((durability) => workers[durability].stop()));
  }
}
