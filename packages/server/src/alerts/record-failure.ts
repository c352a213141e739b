import { type SQL, sql } from "drizzle-orm";

/**
 * The CTE the `fail` transition adds to its statement (beside `changed`, the execution rows it
 * ended, with their `deployment_id` and `ended_at`): each failure, queued for the alert dispatcher,
 * when the execution's deployment has alerts. In the same statement, so a failure is recorded
 * exactly when the execution commits as failed, and never for a failure that did not commit.
 */
export function recordAlertFailure(): SQL {
  return sql`alert_failure as (insert into alert_failures (execution_id, project_id, workflow, deployment_id, failed_at)
    select changed.id, changed.project_id, changed.workflow, d.id, changed.ended_at
    from changed join deployments d on d.id = changed.deployment_id
    where json_typeof(d.manifest -> 'alerts') = 'array'
    on conflict do nothing returning 1)`;
}
