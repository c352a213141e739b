import { sql } from "drizzle-orm";
import type { EndStatementPart } from "../engine/execution-state/end-statement-parts.ts";

/**
 * The part of the `fail` transition's statement that queues each failure for the alert
 * dispatcher, when the execution's deployment has alerts. In the same statement, so a failure is
 * recorded exactly when the execution commits as failed, and never for a failure that did not commit.
 */
export const recordAlertFailure: EndStatementPart = {
  ends: "fail",
  cte: sql`alert_failure as (insert into alert_failures (execution_id, project_id, workflow, deployment_id, failed_at)
    select changed.id, changed.project_id, changed.workflow, d.id, changed.ended_at
    from changed join deployments d on d.id = changed.deployment_id
    where json_typeof(d.manifest -> 'alerts') = 'array'
    on conflict do nothing returning 1)`,
};
