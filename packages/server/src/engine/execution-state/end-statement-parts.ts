import type { SQL } from "drizzle-orm";
import type { FinalTransition } from "./execution-states.ts";
import type { SpanRow } from "./span-writes.ts";

/**
 * What another part of the platform records in the one statement that ends attempts
 * (`endAttempts`): a CTE reading `changed`, the execution rows that statement changed (`id`,
 * `project_id`, `workflow`, `deployment_id`, `attempt`, `execution_span_id`, `trigger_kind`,
 * `created_at`, the new `status`, `input`, `output`, `error`, and the end's `ended_at`). Inside that
 * statement what it records moves exactly when an end commits, and never for one that did not. The
 * composition root lists the parts (billing's meters, Studio's counts, the failures alerts notify
 * of) and hands the list to whatever ends attempts, so the engine imports none of those features.
 */
export interface EndStatementPart {
  /** The ends whose statement it joins: every end of an execution (`final`), or those of one final transition. */
  ends: "final" | FinalTransition;
  /** `name as (...)`, a CTE of its own name. */
  cte: SQL;
  /**
   * A value of each end that the CTE reads from `changed` as `column` (of SQL type `type`),
   * computed from the spans of the attempt's steps this same statement writes: the parts of one
   * statement do not see each other's writes.
   */
  writtenSteps?: { column: string; type: string; valueOf(stepSpans: readonly SpanRow[]): number } | undefined;
}

export type EndStatementParts = readonly EndStatementPart[];

/**
 * The parts of an end that joins none (a sleep's or a wait's, which end no execution): one list, so
 * that their end statements, kept per list of parts, are built once.
 */
export const noEndStatementParts: EndStatementParts = [];
