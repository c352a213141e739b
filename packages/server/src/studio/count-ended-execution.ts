import { sql } from "drizzle-orm";
import type { EndStatementPart } from "../engine/execution-state/end-statement-parts.ts";

/**
 * The part of the engine's end statement that counts each execution it ends: +1 in its creation
 * minute and final status, for the roll-up to fold into `execution_counts`. In that statement, so
 * the count moves exactly when the end commits.
 */
export const countEndedExecution: EndStatementPart = {
  ends: "final",
  cte: sql`counted_end as (
    insert into execution_count_deltas (project_id, minute, status, n)
    select changed.project_id, date_trunc('minute', changed.created_at, 'UTC'), changed.status, 1 from changed
    returning 1)`,
};
