import { sql } from "drizzle-orm";
import { type ExecutionState, finalStates, leasedState, transitions } from "./execution-states.ts";

const stateList = (states: readonly ExecutionState[]) => states.map((state) => `'${state}'`).join(", ");

/**
 * The condition of an execution that has not ended, on a row of `executions` (unqualified columns:
 * in a join, no other table may have a `status`).
 * Literals, not parameters, and each disjunct the very predicate of a partial index of unfinished
 * executions (`executions_ready_idx`, `executions_limited_ready_idx`, `executions_leased_idx`): only
 * so does the planner read them from those small indexes instead of every execution of a project.
 */
const readyStates = stateList([...transitions.claim.from, ...transitions.wake.from]);
export const unfinishedCondition = sql.raw(
  `((status in (${readyStates}) and concurrency_limit is null) or (status in (${readyStates}) and concurrency_limit is not null) or status = '${leasedState}')`,
);

/** The condition of an execution that has ended, on a row of `executions`, as literals. */
export const endedCondition = sql.raw(`status in (${stateList(finalStates)})`);
