/**
 * Every time rule reads the time from a Clock handed in by the caller, so tests can move time
 * forward instead of waiting.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = {
  now: () => new Date(),
};

export interface ManualClock extends Clock {
  set(to: Date): void;
  advance(milliseconds: number): void;
}

export function createManualClock(start: Date = new Date("2026-01-01T00:00:00.000Z")): ManualClock {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    set: (to) => {
      current = to.getTime();
    },
    advance: (milliseconds) => {
      current += milliseconds;
    },
  };
}
