import type { Database } from "../../db/database.ts";
import { createGroupCommit } from "../../db/group-commit.ts";
import {
  type AttemptEnd,
  type BatchedTransition,
  type EndStatementParts,
  endAttempts,
  type TransitionOutcome,
} from "../execution-state/index.ts";

/** A worker's ends of attempts, grouped by transition. */
export type BatchedEnds = <Name extends BatchedTransition>(
  transition: Name,
  end: AttemptEnd<Name>,
) => Promise<TransitionOutcome>;

/** Most ends in one statement: a worker's concurrency rarely exceeds it. */
const maxBatch = 100;

/**
 * Group commit of a worker's ends (`createGroupCommit`): attempts that finish while an end
 * statement of their transition is under way end together in the next one. Most of an end's
 * cost is that of a statement (its executor's start and end over a plan of several writing CTEs,
 * the round trip, the commit), not of its rows, and the attempts of one claim tend to finish
 * together.
 */
export function createBatchedEnds(db: Database, workerId: string, parts: EndStatementParts): BatchedEnds {
  const groups = new Map<BatchedTransition, (end: AttemptEnd<BatchedTransition>) => Promise<TransitionOutcome>>();
  return (transition, end) => {
    let group = groups.get(transition);
    if (group === undefined) {
      group = createGroupCommit(
        (ends: AttemptEnd<BatchedTransition>[]) => endAttempts(db, { transition, holder: { workerId }, parts }, ends),
        { maxBatch },
      );
      groups.set(transition, group);
    }
    return group(end);
  };
}
