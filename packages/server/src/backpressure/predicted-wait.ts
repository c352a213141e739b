/** A backlog's oldest ready execution at one reading of the queue: how long it had waited, and when the reading was made. */
export interface OldestWait {
  waitedMs: number;
  /** Milliseconds since the epoch. */
  readAtMs: number;
}

/**
 * However slowly a queue drains, its oldest execution has waited at least this share of the bound
 * before new executions are refused (the reading sees no backlog younger than that), and the pace is
 * taken no lower: a head that did not move between two readings a second apart says little about
 * the next second, when long executions may all end at once.
 */
export const earliestRefusalShare = 0.5;

/**
 * Whether an execution queued from now until `aheadMs` from now (the next reading) would wait longer
 * than `boundMs`, from the backlog's oldest wait at this reading and at the one before. The queue
 * runs first in, first out, so its head moves forward through the times of arrival at a pace p, and
 * the oldest wait W grows by (1 − p) a millisecond. An execution queued `aheadMs` from now is reached
 * once the head has covered W + aheadMs, so it waits (W + aheadMs × (1 − p)) / p. The pace is taken
 * no higher than 1, so a queue that drains faster than it fills is refused once its oldest has
 * waited past the bound, and no lower than `earliestRefusalShare`. Without a reading before, it is 1.
 */
export function waitsPastBound(now: OldestWait, before: OldestWait | undefined, boundMs: number, aheadMs = 0): boolean {
  const elapsedMs = before === undefined ? 0 : now.readAtMs - before.readAtMs;
  const measured = before === undefined || elapsedMs <= 0 ? 1 : 1 - (now.waitedMs - before.waitedMs) / elapsedMs;
  const pace = Math.min(1, Math.max(earliestRefusalShare, measured));
  return now.waitedMs + aheadMs * (1 - pace) > boundMs * pace;
}
