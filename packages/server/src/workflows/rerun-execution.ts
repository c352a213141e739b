import type { AuditedChange } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import { ok, type ServiceResult } from "../shared/service-result.ts";
import { getExecution } from "./read-executions.ts";
import { type RunWorkflowDependencies, runWorkflow } from "./run-workflow.ts";

/** Starts a new execution of the same workflow with the same input, on the active deployment. */
export async function rerunExecution(
  db: Database,
  deps: RunWorkflowDependencies,
  request: { executionId: string; projectId?: string | undefined; audit?: AuditedChange | undefined },
): Promise<ServiceResult<{ executionId: string }>> {
  const found = await getExecution(db, request);
  if (!found.ok) return found;
  const original = found.value;
  const started = await runWorkflow(db, deps, {
    projectId: original.projectId,
    workflow: original.workflow,
    input: original.input,
    trigger: { kind: "rerun" },
    rerunOf: original.id,
    audit: request.audit,
  });
  return started.ok ? ok({ executionId: started.value.executionId }) : started;
}
