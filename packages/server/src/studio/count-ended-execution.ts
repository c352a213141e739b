import { type SQL, sql } from "drizzle-orm";

/**
 * A CTE of the statement that ends an execution (after `changed`, which returns its project_id,
 * created_at and new status): +1 in its creation minute and final status, for the roll-up to fold
 * into `execution_counts`. In that statement, so the count moves exactly when the end commits.
 */
export function countEndedExecution(): SQL {
  return sql`counted_end as (
    insert into execution_count_deltas (project_id, minute, status, n)
    select changed.project_id, date_trunc('minute', changed.created_at, 'UTC'), changed.status, 1 from changed
    returning 1)`;
}
