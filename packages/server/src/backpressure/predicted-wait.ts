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

/** A workspace's ready queue at one reading, and what this process admitted to it after. */
export interface QueueCount {
  /** Its ready executions of workflows without a limit, `undefined` when not counted. */
  queued: number | undefined;
  /** How long the oldest of them had waited. */
  oldestWaitedMs: number;
  /** Milliseconds since the epoch. */
  readAtMs: number;
  /** Executions this process admitted to the workspace from this reading to the next. */
  admitted: number;
}

/**
 * How many new executions a workspace may take until the next reading, from its queue at this
 * reading and the one before, or `undefined` when the two do not tell (the rule of `waitsPastBound`
 * then holds alone). It is told only when the queue never ran dry between the two readings, that is
 * when its oldest execution now was already queued at the reading before: the workers then took
 * from it as fast as they could, and `left` (those counted before, plus those admitted since, less
 * those counted now) is their pace. Else (a burst into an empty queue) `left` says how little there
 * was to take, not how fast the workers take it. Two limits, the lower holds:
 * - no more than the queue has room for: it runs first in, first out, so one queued now waits for
 *   those ahead to leave it, and at that pace the queue holds `left / elapsed × boundMs` that still
 *   start within the bound, of which `queued` are taken (a long queue from a burst drains first);
 * - once its oldest has waited `earliestRefusalShare` of the bound, no more than `left`: a queue
 *   that far behind is not let grow, so ingest takes the process's time no faster than the workers
 *   finish what it queues, and the pace it is read at, which falls as ingest takes more, cannot
 *   carry the wait past the bound.
 * Other processes' admissions count as not having left, so that together they admit what leaves.
 */
export function queueAllowance(now: QueueCount, before: QueueCount | undefined, boundMs: number): number | undefined {
  if (before?.queued === undefined || now.queued === undefined) return undefined;
  const elapsedMs = now.readAtMs - before.readAtMs;
  if (elapsedMs <= 0 || now.oldestWaitedMs < elapsedMs) return undefined;
  const left = before.queued + before.admitted - now.queued;
  if (left <= 0) return undefined;
  const room = Math.floor((left / elapsedMs) * boundMs) - now.queued;
  const behind = now.oldestWaitedMs > boundMs * earliestRefusalShare;
  return Math.max(0, behind ? Math.min(left, room) : room);
}
