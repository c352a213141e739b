import type { Clock } from "../shared/clock.ts";
import type { Timers } from "../shared/timers.ts";

/**
 * Wakes the worker when an execution it let go of falls due: a sleep, a delayed retry, a wait's
 * expiry. Nothing announces that moment, and a claim only looks when something else starts it (on
 * the embedded database a webhook's execution no longer does), so without this it would wait for
 * the next poll. Only the soonest `capacity` are kept, in memory: the poll still finds the rest, and
 * those of a worker that stopped. A moment that came to nothing (the execution was resumed or
 * cancelled before it) costs one claim that finds nothing.
 */
export interface DueWakeups {
  /** An execution of a workspace `accountId` pays for becomes claimable at `at`. */
  add(accountId: string, at: Date): void;
  /** Cancels the timer; nothing fires after this. */
  stop(): void;
}

interface Wakeup {
  at: number;
  accountId: string;
}

/**
 * Wake-ups are rounded up to this grid, so that a stream of sleeps due a few milliseconds apart
 * costs one claim per step rather than one per execution.
 */
export const wakeupStepMs = 50;

/**
 * A timer is armed at most this far ahead, and the clock read again when it fires: Node's timers
 * run on a monotonic clock, and hold at most 2^31 − 1 ms (24.8 days).
 */
const longestWaitMs = 60 * 60 * 1000;

export function createDueWakeups(
  deps: { clock: Clock; timers: Timers },
  options: { capacity: number; onDue: (accountIds: string[]) => void },
): DueWakeups {
  /** In due order, soonest first. */
  const pending: Wakeup[] = [];
  let armed: { at: number; cancel: () => void } | undefined;
  let stopped = false;

  const arm = () => {
    const next = pending[0];
    if (next === undefined || (armed !== undefined && armed.at <= next.at)) return;
    armed?.cancel();
    const delay = Math.min(Math.max(next.at - deps.clock.now().getTime(), 0), longestWaitMs);
    armed = { at: next.at, cancel: deps.timers.after(delay, fire) };
  };

  function fire(): void {
    armed = undefined;
    if (stopped) return;
    const now = deps.clock.now().getTime();
    let due = 0;
    while (due < pending.length && (pending[due] as Wakeup).at <= now) due += 1;
    const accountIds = new Set(pending.splice(0, due).map((wakeup) => wakeup.accountId));
    arm();
    if (accountIds.size > 0) options.onDue([...accountIds]);
  }

  return {
    add: (accountId, at) => {
      const time = Math.ceil(at.getTime() / wakeupStepMs) * wakeupStepMs;
      if (stopped || !Number.isFinite(time) || options.capacity <= 0) return;
      if (pending.length >= options.capacity) {
        if (time >= (pending[pending.length - 1] as Wakeup).at) return;
        pending.pop();
      }
      let low = 0;
      let high = pending.length;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if ((pending[middle] as Wakeup).at <= time) low = middle + 1;
        else high = middle;
      }
      pending.splice(low, 0, { at: time, accountId });
      arm();
    },
    stop: () => {
      stopped = true;
      armed?.cancel();
      armed = undefined;
      pending.length = 0;
    },
  };
}
