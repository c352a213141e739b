import type { Database } from "../db/database.ts";
import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import type { Timers } from "../shared/timers.ts";
import { type PruneOptions, type PruneReport, pruneHistory, type RetentionPeriods } from "./prune-history.ts";

export interface HistoryPrunerOptions extends PruneOptions {
  periods: RetentionPeriods;
  /** Pause between two passes that left nothing behind; an unfinished pass is followed by another at once. */
  intervalMs: number;
}

export interface HistoryPruner {
  /** Runs a pass now (after the one under way, if any) and resolves with what it deleted. */
  prune(): Promise<PruneReport>;
  stop(): Promise<void>;
}

/**
 * The worker's retention task: a pass every `intervalMs`, and passes back to back while a backlog
 * lasts (after an upgrade, or a lowered retention). Each pass paces its own batches, so a backlog
 * never becomes one long burst holding the executions table's locks or the embedded database's
 * only connection.
 */
export function startHistoryPruner(
  deps: { db: Database; clock: Clock; timers: Timers; logger: Logger },
  options: HistoryPrunerOptions,
): HistoryPruner {
  let current: Promise<PruneReport> | undefined;
  let cancelNext: (() => void) | undefined;
  let stopped = false;

  function runPass(): Promise<PruneReport> {
    const previous = current ?? Promise.resolve(undefined);
    const pass = previous
      .catch(() => undefined)
      .then(() => pruneHistory(deps.db, deps, options.periods, options))
      .then((report) => {
        const deleted = report.executions + report.idempotencyKeys + report.assertionIds + report.registrations;
        if (deleted + report.scheduleTicks + report.alertDeliveries + report.events > 0)
          deps.logger.info({ retention: report }, "deleted expired history");
        return report;
      });
    current = pass;
    return pass;
  }

  function schedule(delayMs: number): void {
    if (stopped) return;
    cancelNext = deps.timers.after(delayMs, () => {
      runPass().then(
        (report) => schedule(report.complete ? options.intervalMs : 0),
        (error: unknown) => {
          deps.logger.error({ err: error }, "deleting expired history failed");
          schedule(options.intervalMs);
        },
      );
    });
  }

  // The first pass waits out the start-up of the process (takeover, warm-up) before it competes with it.
  schedule(Math.min(options.intervalMs, 60_000));
  return {
    prune: runPass,
    stop: async () => {
      stopped = true;
      cancelNext?.();
      await current?.catch(() => undefined);
    },
  };
}
