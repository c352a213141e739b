import type { ManualClock } from "@weft/server/internals";

/**
 * A clock that runs with real time, so that a worker runs at its pace and a trace's spans last what
 * they took, and that a test can still move ahead (a sleep's end, a run's ttl).
 */
export function realTimeClock(): ManualClock {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    set: (to) => {
      offsetMs = to.getTime() - Date.now();
    },
    advance: (milliseconds) => {
      offsetMs += milliseconds;
    },
  };
}
