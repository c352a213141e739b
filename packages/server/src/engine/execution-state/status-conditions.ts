import { type SQL, sql } from "drizzle-orm";
import { type ExecutionState, executionStates, finalStates, leasedState, transitions } from "./execution-states.ts";

const stateList = (states: readonly ExecutionState[]) => states.map((state) => `'${state}'`).join(", ");

const readyStates: readonly ExecutionState[] = [...transitions.claim.from, ...transitions.wake.from];

/**
 * The condition of an execution in one of `states`, on a row of `executions` (unqualified columns:
 * in a join, no other table may have a `status` or a `concurrency_limit`). The states are literals
 * taken from `executionStates`, never from input. When none of them is final, each disjunct is the
 * very predicate of a partial index of unfinished executions (`executions_ready_idx` and
 * `executions_limited_ready_idx` for the ready states, with and without a concurrency limit, and
 * `executions_leased_idx`): only so does the planner read those small indexes instead of every
 * execution of a project. With any other state among them (a final one) no partial index can serve,
 * and the list stays one `in`, which the project's indexes on `status` take as it is.
 */
export function statusAmong(states: readonly ExecutionState[]): SQL {
  const chosen = executionStates.filter((state) => states.includes(state));
  if (chosen.length === 0) return sql`false`;
  const indexed = (state: ExecutionState) => readyStates.includes(state) || state === leasedState;
  if (!chosen.every(indexed)) return sql.raw(`status in (${stateList(chosen)})`);
  const ready = chosen.filter((state) => readyStates.includes(state));
  const disjuncts = [
    ...(ready.length === 0
      ? []
      : [
          `(status in (${stateList(ready)}) and concurrency_limit is null)`,
          `(status in (${stateList(ready)}) and concurrency_limit is not null)`,
        ]),
    ...(chosen.includes(leasedState) ? [`status = '${leasedState}'`] : []),
  ];
  return sql.raw(`(${disjuncts.join(" or ")})`);
}

/** The condition of an execution that has not ended (see `statusAmong`). */
export const unfinishedCondition = statusAmong([...readyStates, leasedState]);

/** The condition of an execution that has ended (see `statusAmong`). */
export const endedCondition = statusAmong(finalStates);
