import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { type ExecutionState, leasedState, type TransitionName, transitions } from "./execution-states.ts";

/**
 * `<column> in ('a', 'b')`, `column` being `status` or a qualified `e.status`. The states are written as literals, not parameters, so that the
 * planner matches the partial indexes on `status` (`executions_leased_idx`, and with the condition on
 * `concurrency_limit` their predicates add, `executions_ready_idx` and `executions_limited_ready_idx`).
 * They come from `executionStates`, never from input.
 */
export function statusIn(states: readonly ExecutionState[], column = "status"): SQL {
  if (states.length === 0) return sql`false`;
  return sql.raw(`${column} in (${states.map((state) => `'${state}'`).join(", ")})`);
}

/**
 * The rows `transition` may leave. With a `holder` (a worker), only the row it holds the lease of,
 * in the leased state; without (the API), only rows in its other states, which no lease guards.
 * Every transition statement's WHERE is this.
 */
export function allowedBy(transition: TransitionName, holder: { workerId: string | SQLWrapper } | undefined): SQL {
  const from: readonly ExecutionState[] = transitions[transition].from;
  if (holder !== undefined) {
    if (!from.includes(leasedState)) return sql`false`;
    return sql`(${statusIn([leasedState])} and lease_owner = ${holder.workerId})`;
  }
  return statusIn(from.filter((state) => state !== leasedState));
}

/** `status = '<to>'`, the assignment of a transition. */
export function setStatusOf(transition: TransitionName): SQL {
  return sql.raw(`status = '${transitions[transition].to}'`);
}
