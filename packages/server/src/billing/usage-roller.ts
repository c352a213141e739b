import type { Database } from "../db/database.ts";
import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import { rollUpUsageDeltas, usageRollUpIntervalMs } from "./usage-roll-up.ts";

export interface UsageRoller {
  /**
   * Called on every poll of the worker: rolls up when `usageRollUpIntervalMs` has passed on the clock
   * since the last pass began; resolves with how many deltas it moved (none when not due or failed).
   */
  tick(): Promise<number>;
  /** Rolls up now, after any roll-up under way, until no delta is left; resolves with how many this call moved. */
  drain(): Promise<number>;
}

/**
 * Each worker rolls up the usage deltas once a second (of the injected clock), one pass at a time,
 * and drains them when it stops cleanly. Workers never coordinate: each takes deltas no other holds.
 */
export function createUsageRoller(deps: { db: Database; clock: Clock; logger: Logger }): UsageRoller {
  let lastAt = Number.NEGATIVE_INFINITY;
  let pass: Promise<number> = Promise.resolve(0);
  let busy = false;

  function run(): Promise<number> {
    const next = pass.then(() => rollUpUsageDeltas(deps.db));
    pass = next.catch(() => 0);
    return next;
  }

  return {
    tick() {
      const now = deps.clock.now().getTime();
      if (busy || now - lastAt < usageRollUpIntervalMs) return Promise.resolve(0);
      lastAt = now;
      busy = true;
      return run()
        .catch((error: unknown) => {
          deps.logger.error({ err: error }, "rolling up usage failed");
          return 0;
        })
        .finally(() => {
          busy = false;
        });
    },
    drain: run,
  };
}
