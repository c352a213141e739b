import type { WorkflowManifest } from "@weft/contract";
import { type AuditedChange, recordAuditEvent } from "../audit/record-audit-event.ts";
import type { Backpressure } from "../backpressure/backpressure.ts";
import type { QuotaGate } from "../billing/quota-gate.ts";
import type { Database, Transaction } from "../db/database.ts";
import type { TriggerKind } from "../db/schema/index.ts";
import { getActiveDeployment } from "../deployments/read-deployments.ts";
import { enqueueExecution, requestDigestOf, storableInputFailure } from "../engine/enqueue-execution.ts";
import type { LocallyStarted, LocalStarts } from "../engine/local-starts.ts";
import { validateJsonSchema } from "../schemas/validate-json-schema.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";

export interface RunWorkflowRequest {
  projectId: string;
  workflow: string;
  input: unknown;
  idempotencyKey?: string | undefined;
  trigger?: { kind: TriggerKind; name?: string } | undefined;
  rerunOf?: string | undefined;
  /** Checked by `checkRunOptions`: labels, and the delay and time to live in milliseconds. */
  tags?: readonly string[] | undefined;
  delayMs?: number | undefined;
  ttlMs?: number | undefined;
  /** Set when a person or agent starts it through the API: the start is then an audit event. */
  audit?: AuditedChange | undefined;
  /** More of the same change, in the transaction that queues the execution (run only when it is new). */
  alsoOnStart?: ((tx: Transaction, executionId: string) => Promise<void>) | undefined;
}

/** What starting a run takes; the platform's context has all of it. */
export interface RunWorkflowDependencies {
  clock: Clock;
  ids: IdGenerator;
  quotas?: QuotaGate | undefined;
  backpressure?: Backpressure | undefined;
  /** This process's worker, which takes a new execution at once when it can (the embedded database). */
  localStarts?: LocalStarts | undefined;
}

/** The workflow of a project's active deployment, or not_found naming what is missing. */
export async function findActiveWorkflow(
  db: Database,
  projectId: string,
  workflow: string,
): Promise<ServiceResult<{ deploymentId: string; workflow: WorkflowManifest }>> {
  const deployment = await getActiveDeployment(db, projectId);
  if (deployment === undefined) return fail.notFound({ message: `the project ${projectId} has no deployment yet` });
  const found = deployment.manifest.workflows.find((entry) => entry.name === workflow);
  if (found === undefined) {
    return fail.notFound({
      message: `the active deployment (#${deployment.number}) defines no workflow "${workflow}"`,
    });
  }
  return ok({ deploymentId: deployment.id, workflow: found });
}

/**
 * Starts a workflow of the project's active deployment: the input is validated against the
 * workflow's schema (invalid, with one issue per problem), the queue must not be backlogged
 * (`backpressure`) and the workspace's plan must have room (`quotas`; both left out by the engine's
 * own callers, which neither limits), then an execution is queued. Given `localStarts` (the worker of
 * this process, on the embedded database), one that a claim would lease at once is written leased
 * to that worker, which runs it without a claim, as ingress does (`local-starts.ts`).
 */
export async function runWorkflow(
  db: Database,
  deps: RunWorkflowDependencies,
  request: RunWorkflowRequest,
): Promise<ServiceResult<{ executionId: string; created: boolean; flowControl?: "debounced" | "skipped" }>> {
  const found = await findActiveWorkflow(db, request.projectId, request.workflow);
  if (!found.ok) return found;
  const { deploymentId, workflow } = found.value;
  // Before the schema: validating megabytes that will be refused anyway is wasted work.
  const unstorable = storableInputFailure(request.input);
  if (unstorable !== undefined) return unstorable;
  let input = request.input;
  if (workflow.inputSchema !== undefined) {
    const validation = validateJsonSchema(workflow.inputSchema, request.input);
    if (!validation.ok) return fail.invalid("the input does not match the workflow's schema", validation.issues);
    input = validation.value;
  }
  const backlogged = await deps.backpressure?.refusal(request.projectId, 1);
  if (backlogged !== undefined) return fail.backlogged(backlogged);
  // Last of the checks, so that only a start that is otherwise good is counted against the quota.
  const exceeded = await deps.quotas?.admit(request.projectId);
  if (exceeded !== undefined) return fail.quotaExceeded(exceeded);
  // Set as soon as the execution is written leased, so that a transaction that fails after it
  // gives the slot back.
  const local: { started?: LocallyStarted } = {};
  let queued: Awaited<ReturnType<typeof enqueueExecution>>;
  try {
    queued = await db.transaction((tx) => enqueueAndRecord(tx, deps, request, { deploymentId, input }, local));
  } catch (error) {
    local.started?.slot.cancel();
    throw error;
  }
  local.started?.slot.begin(local.started.execution);
  if (!queued.ok) return queued;
  const { started: _handedOn, ...value } = queued.value;
  return ok(value);
}

/**
 * The execution queued, or written leased to the local worker (then noted in `local`), and what
 * else the start records, in one transaction.
 */
async function enqueueAndRecord(
  tx: Transaction,
  deps: RunWorkflowDependencies,
  request: RunWorkflowRequest,
  run: { deploymentId: string; input: unknown },
  local: { started?: LocallyStarted },
): ReturnType<typeof enqueueExecution> {
  const queued = await enqueueExecution(tx, deps, {
    projectId: request.projectId,
    deploymentId: run.deploymentId,
    workflow: request.workflow,
    input: run.input,
    trigger: request.trigger ?? { kind: "api" },
    ...(request.idempotencyKey === undefined
      ? {}
      : { idempotencyKey: request.idempotencyKey, requestDigest: requestDigestOf(JSON.stringify(request.input)) }),
    ...(request.rerunOf === undefined ? {} : { rerunOf: request.rerunOf }),
    tags: request.tags,
    delayMs: request.delayMs,
    ttlMs: request.ttlMs,
    localStarts: deps.localStarts,
  });
  if (queued.ok) local.started = queued.value.started;
  if (queued.ok && queued.value.created && request.audit !== undefined) {
    await recordAuditEvent(tx, deps, {
      action: request.rerunOf === undefined ? "execution.started" : "execution.rerun",
      targetType: "execution",
      targetId: queued.value.executionId,
      workspaceId: request.audit.workspaceId,
      actor: request.audit.actor,
      data: { projectId: request.projectId, workflow: request.workflow, rerunOf: request.rerunOf },
    });
  }
  if (queued.ok && queued.value.created && request.alsoOnStart !== undefined)
    await request.alsoOnStart(tx, queued.value.executionId);
  return queued;
}
