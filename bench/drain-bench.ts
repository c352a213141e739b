import { graphileDrain } from "./graphile-drain.ts";
import { median } from "./median.ts";
import { type PlatformDrain, platformDrain } from "./platform-drain.ts";

export interface DrainBenchOptions {
  jobs: number;
  /** Rounds of graphile-worker and each Weft database in turn. */
  rounds: number;
  /** The PostgreSQL server graphile-worker drains on; without one, Weft's embedded drain runs alone. */
  postgresUrl: string | undefined;
  /** Weft's databases by label: the embedded one (no URL) and the server. */
  databases: readonly (readonly [string, string | undefined])[];
  write(line: string): void;
}

const percent = (value: number) => `${(value * 100).toFixed(0)} %`;
const spread = (values: readonly number[], format: (value: number) => string) =>
  values.length < 2 ? "" : ` (${format(Math.min(...values))}–${format(Math.max(...values))})`;

/**
 * The drain of `jobs` queued single-step executions by the platform as `npm start` runs it, beside
 * graphile-worker's drain of as many no-op jobs on the same server. The machine's speed drifts by
 * more than the difference measured, so the systems take turns, round after round, and each Weft
 * drain is set against graphile-worker's of the same round: the verdict is the median of those
 * ratios.
 */
export async function runDrainBench(options: DrainBenchOptions): Promise<void> {
  const { jobs, rounds, postgresUrl, databases, write } = options;
  write(
    `Drain of ${jobs} queued single-step executions by the platform as npm start runs it (defaults, one process), ${rounds === 1 ? "one round" : `${rounds} rounds in turn`}`,
  );
  if (postgresUrl === undefined) {
    write(
      "  graphile-worker and PostgreSQL: skipped (set WEFT_TEST_DATABASE_URL to a PostgreSQL server to include them)",
    );
  }
  const graphileRates: number[] = [];
  const drains = new Map<string, { drain: PlatformDrain; ratio: number | undefined }[]>(
    databases.map(([label]) => [label, []]),
  );
  for (let round = 1; round <= rounds; round += 1) {
    const graphile = postgresUrl === undefined ? undefined : await graphileDrain(postgresUrl, jobs);
    const parts: string[] = [];
    if (graphile !== undefined) {
      graphileRates.push(graphile.perSecond);
      parts.push(`graphile-worker ${graphile.perSecond.toFixed(0)} jobs/s`);
    }
    for (const [label, serverUrl] of databases) {
      const drain = await platformDrain(serverUrl, jobs);
      const ratio = graphile === undefined ? undefined : drain.perSecond / graphile.perSecond;
      drains.get(label)?.push({ drain, ratio });
      const beside = ratio === undefined ? "" : `, ${percent(ratio)}`;
      parts.push(
        `Weft ${label} ${drain.perSecond.toFixed(0)}/s (${drain.cpuMicros.toFixed(0)} µs of CPU per execution${beside})`,
      );
    }
    write(`  round ${round}: ${parts.join("; ")}`);
  }
  if (graphileRates.length > 0) {
    write(
      `  graphile-worker 0.18 (its defaults) on the PostgreSQL server: median ${median(graphileRates).toFixed(0)} jobs/s${spread(graphileRates, (rate) => rate.toFixed(0))}`,
    );
  }
  for (const [label, measured] of drains) {
    const first = measured[0]?.drain;
    if (first === undefined) continue;
    const rates = measured.map(({ drain }) => drain.perSecond);
    const cpu = measured.map(({ drain }) => drain.cpuMicros);
    const ratios = measured.flatMap(({ ratio }) => (ratio === undefined ? [] : [ratio]));
    const beside =
      ratios.length === 0
        ? ""
        : `; against graphile-worker in the same round: median ${percent(median(ratios))}${spread(ratios, percent)} (target ≥ 100 %)`;
    write(
      `  Weft, ${label} (worker concurrency ${first.concurrency}, workspace share ${first.workspaceShare}): median ${median(rates).toFixed(0)} executions/s${spread(rates, (rate) => rate.toFixed(0))}, ${median(cpu).toFixed(0)} µs of the platform process's CPU per execution${beside}`,
    );
  }
}
