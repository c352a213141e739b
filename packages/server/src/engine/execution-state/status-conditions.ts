import { type SQL, sql } from "drizzle-orm";
import { type ExecutionState, executionStates, finalStates, leasedState, transitions } from "./execution-states.ts";
import { statusIn } from "./transition-condition.ts";

/** The states of an execution that waits for a worker once its `run_at` comes: `claim` and `wake` lease it. */
export const readyStates: readonly ExecutionState[] = [...transitions.claim.from, ...transitions.wake.from];

/**
 * The condition of an execution in one of `states`, on a row of `executions` (unqualified columns:
 * in a join, no other table may have a `status` or a `concurrency_limit`). The states are literals
 * taken from `executionStates`, never from input (written by `statusIn`). When each is a ready state
 * or the leased one, each disjunct is the very predicate of a partial index of unfinished executions (`executions_ready_idx` and
 * `executions_limited_ready_idx` for the ready states, with and without a concurrency limit, and
 * `executions_leased_idx`): only so does the planner read those small indexes instead of every
 * execution of a project (`status in ('running')` is read as `status = 'running'`). With any other
 * state among them (a final one) no partial index can serve,
 * and the list stays one `in`, which the project's indexes on `status` take as it is.
 */
export function statusAmong(states: readonly ExecutionState[]): SQL {
  const chosen = executionStates.filter((state) => states.includes(state));
  const indexed = (state: ExecutionState) => readyStates.includes(state) || state === leasedState;
  if (chosen.length === 0 || !chosen.every(indexed)) return statusIn(chosen);
  const ready = chosen.filter((state) => readyStates.includes(state));
  const disjuncts = [
    ...(ready.length === 0
      ? []
      : [
          sql`(${statusIn(ready)} and concurrency_limit is null)`,
          sql`(${statusIn(ready)} and concurrency_limit is not null)`,
        ]),
    ...(chosen.includes(leasedState) ? [statusIn([leasedState])] : []),
  ];
  return sql`(${sql.join(disjuncts, sql` or `)})`;
}

/** The condition of an execution that has not ended (see `statusAmong`). */
export const unfinishedCondition = statusAmong([...readyStates, leasedState]);

/** The condition of an execution that has ended (see `statusAmong`). */
export const endedCondition = statusAmong(finalStates);
