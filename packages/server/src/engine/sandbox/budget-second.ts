/**
 * One second of what a child wrote to a stream the worker reads at a bounded rate (its channel,
 * its output), and how many seconds in a row went over that stream's budget: a child is judged by
 * a run of such seconds, not by one, since a busy worker reads a second's worth late and at once.
 */
export interface BudgetSecond {
  start: number;
  /** Messages read in this second. */
  frames: number;
  bytes: number;
  /** This second went over its budget (counted in `overInRow`). */
  over: boolean;
  /** Seconds in a row, this one included if it is over, that went over the budget. */
  overInRow: number;
}

export function budgetSecond(now: number): BudgetSecond {
  return { start: now, frames: 0, bytes: 0, over: false, overInRow: 0 };
}

/**
 * Starts the next second when the current one is over. The run of seconds over the budget goes on
 * only when the second that ended went over and the next one follows it at once: a stream read
 * past its budget is paused until its second is over, and read again as the next one starts.
 */
export function rollSecond(second: BudgetSecond, now: number): void {
  if (now - second.start < 1000) return;
  if (!second.over || now - second.start >= 2000) second.overInRow = 0;
  second.start = now;
  second.frames = 0;
  second.bytes = 0;
  second.over = false;
}

/** Marks the second as over its budget: the seconds in a row so far the first time, else `undefined`. */
export function overBudget(second: BudgetSecond): number | undefined {
  if (second.over) return undefined;
  second.over = true;
  second.overInRow += 1;
  return second.overInRow;
}
