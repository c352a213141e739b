import { recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Backpressure } from "../backpressure/backpressure.ts";
import type { QuotaGate } from "../billing/quota-gate.ts";
import type { Database } from "../db/database.ts";
import { insertNewExecutions, queuedExecutionRows, storableInputFailure } from "../engine/enqueue-execution.ts";
import { validateJsonSchema } from "../schemas/validate-json-schema.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { fail, ok, type ServiceIssue, type ServiceResult } from "../shared/service-result.ts";
import { findActiveWorkflow, type RunWorkflowRequest } from "./run-workflow.ts";

export interface RunManyRequest
  extends Omit<RunWorkflowRequest, "input" | "idempotencyKey" | "rerunOf" | "alsoOnStart"> {
  /** Already bounded by the contract (1 to 1,000, within the request's body limit). */
  inputs: readonly unknown[];
}

/**
 * Starts one execution per input of a workflow of the project's active deployment, all in one
 * transaction, or none: every input is checked against the workflow's schema first (issues named
 * `inputs.<index>`), then the backlog and the plan's quota for all of them at once. One audit
 * event records the batch. Flow control admits them as it does single starts.
 */
export async function runWorkflowMany(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator; quotas?: QuotaGate | undefined; backpressure?: Backpressure | undefined },
  request: RunManyRequest,
): Promise<ServiceResult<{ executionIds: string[] }>> {
  const found = await findActiveWorkflow(db, request.projectId, request.workflow);
  if (!found.ok) return found;
  const { deploymentId, workflow } = found.value;
  const inputs: unknown[] = [];
  const issues: ServiceIssue[] = [];
  request.inputs.forEach((given, index) => {
    const unstorable = storableInputFailure(given);
    if (unstorable !== undefined && !unstorable.ok) {
      issues.push({ path: `inputs.${index}`, message: unstorable.failure.message });
      return;
    }
    if (workflow.inputSchema === undefined) {
      inputs.push(given ?? null);
      return;
    }
    const validation = validateJsonSchema(workflow.inputSchema, given);
    if (validation.ok) inputs.push(validation.value);
    else
      for (const issue of validation.issues) issues.push({ ...issue, path: joinPath(`inputs.${index}`, issue.path) });
  });
  // A bounded report: the first problems say what is wrong with the batch.
  if (issues.length > 0) return fail.invalid("an input does not match the workflow's schema", issues.slice(0, 20));
  const backlogged = await deps.backpressure?.refusal(request.projectId, inputs.length);
  if (backlogged !== undefined) return fail.backlogged(backlogged);
  const exceeded = await deps.quotas?.admit(request.projectId, inputs.length);
  if (exceeded !== undefined) return fail.quotaExceeded(exceeded);
  return db.transaction(async (tx) => {
    const rows = inputs.map((input) =>
      queuedExecutionRows(
        deps,
        {
          projectId: request.projectId,
          deploymentId,
          workflow: request.workflow,
          input,
          trigger: request.trigger ?? { kind: "api" },
          tags: request.tags,
          delayMs: request.delayMs,
          ttlMs: request.ttlMs,
        },
        workflow,
      ),
    );
    const { outcomes } = await insertNewExecutions(tx, rows);
    // A debounced start is answered with the queued execution it moved, as `workflows.run` answers it.
    const executionIds = rows.map((row) => outcomes.get(row.execution.id)?.executionId ?? row.execution.id);
    if (request.audit !== undefined) {
      await recordAuditEvent(tx, deps, {
        action: "execution.started",
        targetType: "execution",
        targetId: executionIds[0] ?? "",
        workspaceId: request.audit.workspaceId,
        actor: request.audit.actor,
        data: { projectId: request.projectId, workflow: request.workflow, count: executionIds.length },
      });
    }
    return ok({ executionIds });
  });
}

function joinPath(prefix: string, path: string): string {
  return path === "" ? prefix : `${prefix}.${path}`;
}
