import type { WorkflowManifest } from "@weft/contract";
import { type AuditedChange, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Database } from "../db/database.ts";
import type { TriggerKind } from "../db/schema/index.ts";
import { getActiveDeployment } from "../deployments/read-deployments.ts";
import { assertStorableInput, enqueueExecution } from "../engine/enqueue-execution.ts";
import { validateJsonSchema } from "../schemas/validate-json-schema.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { InvalidRequestError, NotFoundError } from "../shared/service-errors.ts";

export interface RunWorkflowRequest {
  projectId: string;
  workflow: string;
  input: unknown;
  idempotencyKey?: string | undefined;
  trigger?: { kind: TriggerKind; name?: string } | undefined;
  rerunOf?: string | undefined;
  /** Set when a person or agent starts it through the API: the start is then an audit event. */
  audit?: AuditedChange | undefined;
}

/** The workflow of a project's active deployment, or NotFoundError. */
export async function findActiveWorkflow(
  db: Database,
  projectId: string,
  workflow: string,
): Promise<{ deploymentId: string; workflow: WorkflowManifest }> {
  const deployment = await getActiveDeployment(db, projectId);
  if (deployment === undefined) throw new NotFoundError(`the project ${projectId} has no deployment yet`);
  const found = deployment.manifest.workflows.find((entry) => entry.name === workflow);
  if (found === undefined) {
    throw new NotFoundError(`the active deployment (#${deployment.number}) defines no workflow "${workflow}"`);
  }
  return { deploymentId: deployment.id, workflow: found };
}

/**
 * Starts a workflow of the project's active deployment: the input is validated against the
 * workflow's schema (InvalidRequestError with one issue per problem) and an execution is queued.
 */
export async function runWorkflow(
  db: Database,
  deps: { clock: Clock; ids: IdGenerator },
  request: RunWorkflowRequest,
): Promise<{ executionId: string; created: boolean }> {
  const { deploymentId, workflow } = await findActiveWorkflow(db, request.projectId, request.workflow);
  // Before the schema: validating megabytes that will be refused anyway is wasted work.
  assertStorableInput(request.input);
  let input = request.input;
  if (workflow.inputSchema !== undefined) {
    const validation = validateJsonSchema(workflow.inputSchema, request.input);
    if (!validation.ok)
      throw new InvalidRequestError("the input does not match the workflow's schema", validation.issues);
    input = validation.value;
  }
  return db.transaction(async (tx) => {
    const queued = await enqueueExecution(tx, deps, {
      projectId: request.projectId,
      deploymentId,
      workflow: request.workflow,
      input,
      trigger: request.trigger ?? { kind: "api" },
      ...(request.idempotencyKey === undefined ? {} : { idempotencyKey: request.idempotencyKey }),
      ...(request.rerunOf === undefined ? {} : { rerunOf: request.rerunOf }),
    });
    if (queued.created && request.audit !== undefined) {
      await recordAuditEvent(tx, deps, {
        action: request.rerunOf === undefined ? "execution.started" : "execution.rerun",
        targetType: "execution",
        targetId: queued.executionId,
        workspaceId: request.audit.workspaceId,
        actor: request.audit.actor,
        data: { projectId: request.projectId, workflow: request.workflow, rerunOf: request.rerunOf },
      });
    }
    return queued;
  });
}
