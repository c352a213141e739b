import type { JsonSchema } from "@weft/contract";
import { type EnqueueExecutionRequest, enqueueExecution, requestDigestOf } from "../engine/enqueue-execution.ts";
import { type SchemaValidation, validateJsonSchema } from "../schemas/validate-json-schema.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import type { ActiveDefinition } from "./find-ingress-definitions.ts";
import type { Budget } from "./hot-path-budget.ts";
import type { IngressContext } from "./ingress-context.ts";

/**
 * Checks a submission against the form's schema (when it has one), then against the input schema of
 * the workflow it starts, so that a workflow never receives input its own schema refuses.
 */
export function validateSubmission(
  schemas: { definition: JsonSchema | undefined; workflow: JsonSchema | undefined },
  value: unknown,
): SchemaValidation {
  let current: unknown = value;
  for (const schema of [schemas.definition, schemas.workflow]) {
    if (schema === undefined) continue;
    const checked = validateJsonSchema(schema, current);
    if (!checked.ok) return checked;
    current = checked.value;
  }
  return { ok: true, value: current };
}

/**
 * Enqueues the execution that a form or webhook of the active deployment starts, unless executions
 * already queued wait too long (backlogged) or the workspace's plan has no room left
 * (quota_exceeded); either way nothing is queued. A submission with
 * an idempotency key gets a transaction of its own (the key is looked up and claimed under a lock);
 * any other joins the group commit of the ingress's batcher. Either way the budget is checked just
 * before the commit: a submission whose caller has already been told 503 rolls back rather than
 * running unannounced.
 */
export async function enqueueSubmission(
  ingress: IngressContext,
  budget: Budget,
  definition: ActiveDefinition<unknown>,
  submission: {
    input: unknown;
    trigger: EnqueueExecutionRequest["trigger"];
    idempotencyKey?: string | undefined;
    /** The body as sent, whose digest the idempotency key is bound to. */
    rawBody?: string | undefined;
  },
): Promise<ServiceResult<{ executionId: string; created: boolean }>> {
  const backlogged = await ingress.platform.backpressure?.refusal(definition.projectId, 1);
  if (backlogged !== undefined) return fail.backlogged(backlogged);
  const exceeded = await ingress.platform.quotas.admit(definition.projectId);
  if (exceeded !== undefined) return fail.quotaExceeded(exceeded);
  const request = {
    projectId: definition.projectId,
    deploymentId: definition.deploymentId,
    workflow: definition.workflow.name,
    input: submission.input,
    trigger: submission.trigger,
  };
  if (submission.idempotencyKey === undefined) {
    const executionId = await ingress.enqueues.enqueue({ request, workflow: definition.workflow, deadline: budget });
    return ok({ executionId, created: true });
  }
  const { database, clock, ids } = ingress.platform;
  const idempotencyKey = submission.idempotencyKey;
  return database.db.transaction(async (tx) => {
    budget.throwIfExpired();
    const requestDigest = submission.rawBody === undefined ? undefined : requestDigestOf(submission.rawBody);
    const enqueued = await enqueueExecution(
      tx,
      { clock, ids },
      { ...request, idempotencyKey, ...(requestDigest === undefined ? {} : { requestDigest }) },
    );
    budget.throwIfExpired();
    return enqueued;
  });
}
