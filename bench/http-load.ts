import autocannon from "autocannon";

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses with a 2xx status. */
  ok: number;
  non2xx: number;
  errors: number;
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
  const result = await run(options.durationSeconds);
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok: result["2xx"],
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

export function formatLoad(name: string, result: LoadResult): string {
  return `${name.padEnd(28)} ${result.requestsPerSecond.toFixed(0).padStart(8)} req/s   p50 ${result.p50Ms
    .toFixed(1)
    .padStart(
      6,
    )} ms   p99 ${result.p99Ms.toFixed(1).padStart(6)} ms   non-2xx ${result.non2xx}   errors ${result.errors}`;
}
