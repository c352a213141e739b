import { cpus } from "node:os";
import autocannon from "autocannon";

/**
 * Where the CPU went during a run, per request: everything on the machine (server, database, load
 * generator) and the load generator alone (autocannon runs in this process). On a machine the
 * three share, these say how far throughput can go: the cores' time divided by the CPU a request costs.
 */
export interface CpuPerRequest {
  machineMicros: number;
  loadGeneratorMicros: number;
  /** Share of the machine's cores busy during the run, 0 to 1. */
  machineBusy: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses with a 2xx status. */
  ok: number;
  non2xx: number;
  /** Responses that told the caller to slow down: 503 and 429. */
  refused: number;
  errors: number;
  cpu: CpuPerRequest;
}

export interface LoadOptions {
  url: string;
  connections: number;
  durationSeconds: number;
  /** Load driven first and not counted, so both paths are measured with the JIT and caches warm. */
  warmUpSeconds?: number;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  /** Requests per second across all connections; unset drives the server as fast as it answers. */
  overallRate?: number;
  /** Sees the body of every response received before the run ends. */
  onBody?: (body: string) => void;
}

/**
 * Drives one URL with autocannon for a fixed time (after an optional uncounted warm-up) and returns
 * throughput and latency percentiles.
 */
export async function measureLoad(options: LoadOptions): Promise<LoadResult> {
  const run = (duration: number) =>
    autocannon({
      url: options.url,
      connections: options.connections,
      duration,
      method: options.method ?? "GET",
      headers: options.headers,
      body: options.body,
      ...(options.overallRate === undefined ? {} : { overallRate: options.overallRate }),
      ...(options.onBody === undefined
        ? {}
        : {
            verifyBody: (body: unknown) => {
              options.onBody?.(String(body));
              return true;
            },
          }),
    });
  if (options.warmUpSeconds !== undefined && options.warmUpSeconds > 0) await run(options.warmUpSeconds);
  const machineBefore = machineCpuMs();
  const ownBefore = process.cpuUsage();
  const result = await run(options.durationSeconds);
  const own = process.cpuUsage(ownBefore);
  const machineAfter = machineCpuMs();
  const busyMs = machineAfter.busy - machineBefore.busy;
  const idleMs = machineAfter.idle - machineBefore.idle;
  const requests = Math.max(1, result.requests.total);
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok: result["2xx"],
    non2xx: result.non2xx,
    refused: (result.statusCodeStats?.["503"]?.count ?? 0) + (result.statusCodeStats?.["429"]?.count ?? 0),
    errors: result.errors,
    cpu: {
      machineMicros: (busyMs * 1000) / requests,
      loadGeneratorMicros: (own.user + own.system) / requests,
      machineBusy: busyMs / Math.max(1, busyMs + idleMs),
    },
  };
}

/** Milliseconds all cores spent busy and idle since boot. */
export function machineCpuMs(): { busy: number; idle: number } {
  let busy = 0;
  let idle = 0;
  for (const { times } of cpus()) {
    busy += times.user + times.nice + times.sys + times.irq;
    idle += times.idle;
  }
  return { busy, idle };
}

/** How many cores this machine has: the server, the database and the load generator share them. */
export function coreCount(): number {
  return cpus().length;
}

export function formatLoad(name: string, result: LoadResult): string {
  const rate = result.requestsPerSecond.toFixed(0).padStart(8);
  const latency = `p50 ${result.p50Ms.toFixed(1).padStart(6)} ms   p99 ${result.p99Ms.toFixed(1).padStart(6)} ms`;
  const cpu = `cpu/req ${result.cpu.machineMicros.toFixed(0)} µs (load generator ${result.cpu.loadGeneratorMicros.toFixed(0)}), cores ${(result.cpu.machineBusy * 100).toFixed(0)} % busy`;
  return `${name.padEnd(28)} ${rate} req/s   ${latency}   non-2xx ${result.non2xx}   errors ${result.errors}   ${cpu}`;
}
