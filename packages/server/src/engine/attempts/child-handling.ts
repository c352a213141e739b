import {
  maxRunDelayMs,
  maxRunTtlMs,
  minRunTtlMs,
  runDurationMs,
  runOptionsSchema,
  type WorkflowManifest,
} from "@weft/contract";
import { eq, sql } from "drizzle-orm";
import { deployments, type ExecutionError } from "../../db/schema/index.ts";
import { sqlStateOf } from "../../db/sql-state.ts";
import { createIdGenerator } from "../../shared/ids.ts";
import { queuedExecutionRows, storableInputFailure } from "../enqueue-execution.ts";
import { startChild } from "../execution-state/child-starts.ts";
import type { Lease } from "../execution-state/index.ts";
import type { ChildMessage, ChildStartedAnswer } from "../sandbox/protocol.ts";
import { checkStepName } from "../stored-values.ts";
import { newSpanId } from "../trace-ids.ts";
import { newTokenNonce, tokenHashOf, tokenIdOf } from "../wait-token-ids.ts";
import { endAttempt } from "./attempt-ending.ts";
import { type AttemptContext, abandon, type RunningAttempt } from "./running-attempt.ts";

type StartChildMessage = Extract<ChildMessage, { type: "startChild" }>;

const refusal = (message: string): ExecutionError => ({ name: "ChildWorkflowStartError", message });

/** A start's delay, ttl and tags as the run's are checked, or the error naming the option. */
function startOptions(
  options: unknown,
): { ok: true; delayMs?: number; ttlMs?: number; tags?: string[] } | { ok: false; error: ExecutionError } {
  const parsed = runOptionsSchema.safeParse(options ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, error: refusal(`options.${issue?.path.join(".") ?? ""}: ${issue?.message ?? "is invalid"}`) };
  }
  const { delay, ttl, tags } = parsed.data;
  const result: { ok: true; delayMs?: number; ttlMs?: number; tags?: string[] } = { ok: true };
  if (delay !== undefined) {
    const ms = runDurationMs(delay, { min: 0, max: maxRunDelayMs });
    if (!ms.ok) return { ok: false, error: refusal(`options.delay ${ms.message}`) };
    result.delayMs = ms.ms;
  }
  if (ttl !== undefined) {
    const ms = runDurationMs(ttl, { min: minRunTtlMs, max: maxRunTtlMs });
    if (!ms.ok) return { ok: false, error: refusal(`options.ttl ${ms.message}`) };
    result.ttlMs = ms.ms;
  }
  if (tags !== undefined) result.tags = tags;
  return result;
}

/** The callee among the deployment's workflows, with its input as its schema reads it; or the error naming what is wrong. */
async function checkedCallee(
  context: AttemptContext,
  run: RunningAttempt,
  message: StartChildMessage,
): Promise<{ ok: true; workflow: WorkflowManifest; input: unknown } | { ok: false; error: ExecutionError }> {
  const [deployment] = await context.db
    .select({ workflows: sql<unknown>`${deployments.manifest} -> 'workflows'` })
    .from(deployments)
    .where(eq(deployments.id, run.execution.deploymentId));
  const workflows = (deployment?.workflows ?? []) as WorkflowManifest[];
  const workflow = workflows.find((entry) => entry.name === message.workflow);
  if (workflow === undefined) {
    return {
      ok: false,
      error: refusal(`workflow: the deployment defines no workflow "${message.workflow.slice(0, 200)}"`),
    };
  }
  const unstorable = storableInputFailure(message.input);
  if (unstorable !== undefined && !unstorable.ok) {
    return { ok: false, error: refusal(`input: ${unstorable.failure.message}`) };
  }
  if (workflow.inputSchema === undefined) return { ok: true, workflow, input: message.input ?? null };
  if (context.validateInput === undefined) {
    return { ok: false, error: refusal("input: this worker cannot check inputs against a workflow's schema") };
  }
  const validation = context.validateInput(workflow.inputSchema, message.input);
  if (!validation.ok) {
    const issues = validation.issues.map((issue) => `${issue.path === "" ? "(root)" : issue.path}: ${issue.message}`);
    return {
      ok: false,
      error: refusal(`input: the input does not match the schema of "${workflow.name}": ${issues.join("; ")}`),
    };
  }
  return { ok: true, workflow, input: validation.value };
}

/**
 * `ctx.invoke` and `ctx.start`: starts a child execution of a workflow of the parent's deployment,
 * once per name (a replay answers the child started before). The child shares the parent's trace,
 * its trigger span under the parent's attempt (or the invoke's wait). Children pass no quota gate
 * of their own: like an execution's steps, they are work its start was admitted for.
 */
export async function onStartChild(
  context: AttemptContext,
  run: RunningAttempt,
  message: StartChildMessage,
): Promise<ChildStartedAnswer> {
  if (run.done) return { stop: "abandoned" };
  const name = checkStepName(message.name);
  if (!name.ok) return { error: name.error };
  if (run.cancelRequested) {
    run.sandbox?.abandon();
    endAttempt(context, run, { kind: "cancel" });
    return { stop: "cancelled" };
  }
  const options = startOptions(message.options);
  if (!options.ok) return { error: options.error };
  try {
    const callee = await checkedCallee(context, run, message);
    if (!callee.ok) return { error: callee.error };
    const parent = run.execution;
    const now = context.clock.now();
    const rows = queuedExecutionRows(
      { clock: context.clock, ids: createIdGenerator(context.clock) },
      {
        projectId: parent.projectId,
        deploymentId: parent.deploymentId,
        workflow: callee.workflow.name,
        input: callee.input,
        trigger: { kind: "workflow", name: parent.workflow },
        ...(options.tags === undefined ? {} : { tags: options.tags }),
        ...(options.delayMs === undefined ? {} : { delayMs: options.delayMs }),
        ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
      },
      callee.workflow,
    );
    const waitSpanId = newSpanId();
    const triggerParent = message.wait ? waitSpanId : run.attemptSpanId;
    const child = {
      ...rows,
      execution: {
        ...rows.execution,
        traceId: parent.traceId,
        parentExecutionId: parent.id,
        parentWaitName: message.wait ? message.name : null,
      },
      spans: rows.spans.map((span) => ({
        ...span,
        trace_id: parent.traceId,
        ...(span.kind === "trigger"
          ? {
              parent_span_id: triggerParent,
              attributes: { ...span.attributes, "weft.parent.execution_id": parent.id },
            }
          : {}),
      })),
    };
    const nonce = newTokenNonce();
    const lease: Lease = { executionId: parent.id, workerId: context.workerId };
    const started = await startChild(context.db, lease, {
      name: message.name,
      wait: message.wait
        ? {
            nonce,
            tokenHash: tokenHashOf(tokenIdOf(context.tokens.key, nonce)),
            spanId: waitSpanId,
            expiresAt: new Date(now.getTime() + message.timeoutMs),
          }
        : undefined,
      step: message.wait ? undefined : { attempt: parent.attempt, sequence: message.sequence },
      attemptSpanId: run.attemptSpanId,
      now,
      child,
    });
    if (started.outcome === "refused") {
      abandon(context, run);
      return { stop: "abandoned" };
    }
    if (started.outcome === "nameTaken") {
      return { error: refusal(`the name "${message.name}" is already used by a step or a token of this execution`) };
    }
    return { childExecutionId: started.childExecutionId };
  } catch (error) {
    const sqlState = sqlStateOf(error);
    context.logger.error({ executionId: run.execution.id, sqlState }, "could not start a child execution");
    return { error: { name: "StorageError", message: "the child execution could not be started" } };
  }
}
