import type { Timers } from "../shared/timers.ts";

/** How long ingress may spend between receiving a submission and acknowledging it. */
export const hotPathBudgetMs = 5000;

/** What a 503 for an exceeded budget asks the client to wait before retrying, in seconds. */
export const budgetRetryAfterSeconds = 5;

/** Thrown inside the work once the budget is spent, so an open transaction rolls back instead of committing. */
export class BudgetExceededError extends Error {
  override readonly name = "BudgetExceededError";
}

export interface Budget {
  readonly expired: boolean;
  /** Call before anything irreversible (a commit): throws `BudgetExceededError` once the budget is spent. */
  throwIfExpired(): void;
}

export type BudgetOutcome<T> = { ok: true; value: T } | { ok: false };

export interface BudgetOptions {
  budgetMs: number;
  timers: Timers;
  /** Told what the abandoned work finally did, for the log (it normally rolls back). */
  onAbandoned?: (outcome: { committed: boolean; error?: unknown }) => void;
}

/**
 * Runs the hot path under a deadline. When the deadline passes first, the caller gets `{ ok: false }`
 * at once (and answers 503) while the work, still running, hits `throwIfExpired` before its commit
 * and rolls back, leaving nothing half-written behind.
 */
export async function withinBudget<T>(
  options: BudgetOptions,
  work: (budget: Budget) => Promise<T>,
): Promise<BudgetOutcome<T>> {
  let expired = false;
  let expire: () => void = () => undefined;
  const deadline = new Promise<BudgetOutcome<T>>((resolve) => {
    expire = () => {
      expired = true;
      resolve({ ok: false });
    };
  });
  const cancel = options.timers.after(options.budgetMs, () => expire());
  const budget: Budget = {
    get expired() {
      return expired;
    },
    throwIfExpired() {
      if (expired) throw new BudgetExceededError("the hot-path budget is spent");
    },
  };
  const running = work(budget).then((value): BudgetOutcome<T> => ({ ok: true, value }));
  try {
    const outcome = await Promise.race([running, deadline]);
    if (!outcome.ok) {
      running.then(
        (late) => options.onAbandoned?.({ committed: late.ok }),
        (error: unknown) => options.onAbandoned?.({ committed: false, error }),
      );
    }
    return outcome;
  } finally {
    cancel();
  }
}
