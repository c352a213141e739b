import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";

/** How often a worker rolls up, on the injected clock. */
export const rollUpIntervalMs = 1000;

/** One kind of delta's roll-up: moves every pending delta it can take, resolves with how many. */
export type RollUp = () => Promise<number>;

export interface DeltaRoller {
  /**
   * Called on every poll of the worker: rolls up when `rollUpIntervalMs` has passed on the clock
   * since the last pass began; resolves with how many deltas it moved (none when not due or failed).
   */
  tick(): Promise<number>;
  /** Rolls up now, after any roll-up under way, until no delta is left; resolves with how many this call moved. */
  drain(): Promise<number>;
}

/**
 * Each worker rolls up the deltas (usage, execution counts) once a second of the injected clock,
 * one pass at a time, and drains them when it stops cleanly. Workers never coordinate: each takes
 * deltas no other holds. A roll-up that fails leaves its deltas for the next pass.
 */
export function createDeltaRoller(deps: { clock: Clock; logger: Logger; rollUps: readonly RollUp[] }): DeltaRoller {
  let lastAt = Number.NEGATIVE_INFINITY;
  let pass: Promise<number> = Promise.resolve(0);
  let busy = false;

  async function rollUpAll(): Promise<number> {
    let moved = 0;
    for (const rollUp of deps.rollUps) moved += await rollUp();
    return moved;
  }

  function run(): Promise<number> {
    const next = pass.then(rollUpAll);
    pass = next.catch(() => 0);
    return next;
  }

  return {
    tick() {
      const now = deps.clock.now().getTime();
      if (busy || now - lastAt < rollUpIntervalMs) return Promise.resolve(0);
      lastAt = now;
      busy = true;
      return run()
        .catch((error: unknown) => {
          deps.logger.error({ err: error }, "rolling up deltas failed");
          return 0;
        })
        .finally(() => {
          busy = false;
        });
    },
    drain: run,
  };
}
