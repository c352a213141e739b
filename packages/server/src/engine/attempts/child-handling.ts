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
import { startChild, startChildren } from "../execution-state/child-starts.ts";
import type { Lease } from "../execution-state/index.ts";
import { maxChildrenPerExecution, maxExecutionDepth } from "../limits.ts";
import type { ChildMessage, ChildStartedAnswer } from "../sandbox/protocol.ts";
import { checkStepName } from "../stored-values.ts";
import { newSpanId } from "../trace-ids.ts";
import { newTokenNonce, tokenHashOf, tokenIdOf } from "../wait-token-ids.ts";
import { requestAllowed } from "./request-allowed.ts";
import { type AttemptContext, abandon, type RunningAttempt } from "./running-attempt.ts";

type StartChildMessage = Extract<ChildMessage, { type: "startChild" }>;
type StartChildrenMessage = Extract<ChildMessage, { type: "startChildren" }>;

const refusal = (message: string): ExecutionError => ({ name: "ChildWorkflowStartError", message });

const tooManyChildren = refusal(
  `an execution starts at most ${maxChildrenPerExecution} child executions, all its attempts together`,
);

/** Refuses a start by an execution at the deepest a start may lead to, before the quota counts it. */
const tooDeep = refusal(
  `depth: this execution is ${maxExecutionDepth} starts deep, the limit (maxExecutionDepth) for executions started by executions, so it cannot start another`,
);

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

/** The callee among the deployment's workflows, or the error naming it. */
async function calleeOf(
  context: AttemptContext,
  run: RunningAttempt,
  name: string,
): Promise<{ ok: true; workflow: WorkflowManifest } | { ok: false; error: ExecutionError }> {
  const [deployment] = await context.db
    .select({ workflows: sql<unknown>`${deployments.manifest} -> 'workflows'` })
    .from(deployments)
    .where(eq(deployments.id, run.execution.deploymentId));
  const workflows = (deployment?.workflows ?? []) as WorkflowManifest[];
  const workflow = workflows.find((entry) => entry.name === name);
  if (workflow === undefined) {
    return { ok: false, error: refusal(`workflow: the deployment defines no workflow "${name.slice(0, 200)}"`) };
  }
  return { ok: true, workflow };
}

/** An input as the callee's schema reads it, or the error naming `field` and what is wrong. */
function checkedInput(
  context: AttemptContext,
  workflow: WorkflowManifest,
  input: unknown,
  field: string,
): { ok: true; input: unknown } | { ok: false; error: ExecutionError } {
  const unstorable = storableInputFailure(input);
  if (unstorable !== undefined && !unstorable.ok) {
    return { ok: false, error: refusal(`${field}: ${unstorable.failure.message}`) };
  }
  if (workflow.inputSchema === undefined) return { ok: true, input: input ?? null };
  if (context.validateInput === undefined) {
    return { ok: false, error: refusal(`${field}: this worker cannot check inputs against a workflow's schema`) };
  }
  const validation = context.validateInput(workflow.inputSchema, input);
  if (!validation.ok) {
    const issues = validation.issues.map((issue) => `${issue.path === "" ? "(root)" : issue.path}: ${issue.message}`);
    return {
      ok: false,
      error: refusal(`${field}: the input does not match the schema of "${workflow.name}": ${issues.join("; ")}`),
    };
  }
  return { ok: true, input: validation.value };
}

/**
 * Refuses a wait for a workflow whose start flow control may skip (a rate limit) or fold into
 * another execution (a debounce): the child the wait names would never end, and the invoke would
 * end only at its timeout.
 */
function waitRefusal(workflow: WorkflowManifest): ExecutionError | undefined {
  const option =
    workflow.rateLimit !== undefined ? "rateLimit" : workflow.debounce !== undefined ? "debounce" : undefined;
  if (option === undefined) return undefined;
  return refusal(
    `workflow: "${workflow.name}" has a ${option}, which may skip or fold a start, so it cannot be waited for; start it with ctx.start`,
  );
}

/** The callee and the input checked, for one child. */
async function checkedCallee(
  context: AttemptContext,
  run: RunningAttempt,
  message: StartChildMessage,
): Promise<{ ok: true; workflow: WorkflowManifest; input: unknown } | { ok: false; error: ExecutionError }> {
  const callee = await calleeOf(context, run, message.workflow);
  if (!callee.ok) return callee;
  const input = checkedInput(context, callee.workflow, message.input, "input");
  return input.ok ? { ok: true, workflow: callee.workflow, input: input.input } : input;
}

/**
 * A child's rows: queued for `workflow`, started by `run`'s execution, in its trace, its trigger
 * span under `triggerParent` (the invoke's wait span, or the parent's attempt).
 */
function childRows(
  context: AttemptContext,
  run: RunningAttempt,
  child: { workflow: WorkflowManifest; input: unknown; options: StartOptions; waitName: string | null },
  triggerParent: string,
) {
  const parent = run.execution;
  const { options } = child;
  const rows = queuedExecutionRows(
    { clock: context.clock, ids: createIdGenerator(context.clock) },
    {
      projectId: parent.projectId,
      deploymentId: parent.deploymentId,
      workflow: child.workflow.name,
      input: child.input,
      trigger: { kind: "workflow", name: parent.workflow },
      depth: parent.depth + 1,
      ...(options.tags === undefined ? {} : { tags: options.tags }),
      ...(options.delayMs === undefined ? {} : { delayMs: options.delayMs }),
      ...(options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs }),
    },
    child.workflow,
  );
  return {
    ...rows,
    execution: {
      ...rows.execution,
      traceId: parent.traceId,
      parentExecutionId: parent.id,
      parentWaitName: child.waitName,
    },
    spans: rows.spans.map((span) => ({
      ...span,
      trace_id: parent.traceId,
      ...(span.kind === "trigger"
        ? { parent_span_id: triggerParent, attributes: { ...span.attributes, "weft.parent.execution_id": parent.id } }
        : {}),
    })),
  };
}

type StartOptions = { delayMs?: number; ttlMs?: number; tags?: string[] };

/**
 * What every start of children asks first: a run still this worker's and not cancelled, a step
 * name, options in range, and a parent not at `maxExecutionDepth`; the options, or the answer that
 * ends the start.
 */
function startAllowed(
  context: AttemptContext,
  run: RunningAttempt,
  message: { name: string; options?: unknown },
): ({ ok: true } & StartOptions) | { ok: false; answer: ChildStartedAnswer } {
  const stopped = requestAllowed(context, run, () => {
    const name = checkStepName(message.name);
    return name.ok ? undefined : name.error;
  });
  if (stopped !== undefined) return { ok: false, answer: stopped };
  if (run.execution.depth >= maxExecutionDepth) return { ok: false, answer: { error: tooDeep } };
  const options = startOptions(message.options);
  return options.ok ? options : { ok: false, answer: { error: options.error } };
}

/**
 * `ctx.invoke` and `ctx.start`: starts a child execution of a workflow of the parent's deployment,
 * once per name (a replay answers the child started before). The child shares the parent's trace,
 * its trigger span under the parent's attempt (or the invoke's wait). A child is one deeper than
 * its parent, and passes the plan's execution quota like any start; not the backlog's refusal,
 * since its parent is already running.
 */
export async function onStartChild(
  context: AttemptContext,
  run: RunningAttempt,
  message: StartChildMessage,
): Promise<ChildStartedAnswer> {
  const options = startAllowed(context, run, message);
  if (!options.ok) return options.answer;
  try {
    const callee = await checkedCallee(context, run, message);
    if (!callee.ok) return { error: callee.error };
    const unwaitable = message.wait ? waitRefusal(callee.workflow) : undefined;
    if (unwaitable !== undefined) return { error: unwaitable };
    const exceeded = await context.admitStarts?.(run.execution.projectId, 1);
    if (exceeded !== undefined) return { error: refusal(`quota: ${exceeded}`) };
    const parent = run.execution;
    const now = context.clock.now();
    const waitSpanId = newSpanId();
    const child = childRows(
      context,
      run,
      { workflow: callee.workflow, input: callee.input, options, waitName: message.wait ? message.name : null },
      message.wait ? waitSpanId : run.attemptSpanId,
    );
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
    if (started.outcome === "tooMany") return { error: tooManyChildren };
    return { childExecutionId: started.childExecutionId };
  } catch (error) {
    const sqlState = sqlStateOf(error);
    context.logger.error({ executionId: run.execution.id, sqlState }, "could not start a child execution");
    return { error: { name: "StorageError", message: "the child execution could not be started" } };
  }
}

/**
 * `ctx.invokeMany`: one child per input, each with its parent's wait `<name>#<index>`, all in one
 * transaction (or, on replay, the children started before). An input the callee's schema refuses
 * is named (`inputs.<index>`) and starts none.
 */
export async function onStartChildren(
  context: AttemptContext,
  run: RunningAttempt,
  message: StartChildrenMessage,
): Promise<ChildStartedAnswer> {
  const options = startAllowed(context, run, message);
  if (!options.ok) return options.answer;
  try {
    const callee = await calleeOf(context, run, message.workflow);
    if (!callee.ok) return { error: callee.error };
    const unwaitable = waitRefusal(callee.workflow);
    if (unwaitable !== undefined) return { error: unwaitable };
    const inputs: unknown[] = [];
    for (const [index, given] of message.inputs.entries()) {
      const checked = checkedInput(context, callee.workflow, given, `inputs.${index}`);
      if (!checked.ok) return { error: checked.error };
      inputs.push(checked.input);
    }
    const exceeded = await context.admitStarts?.(run.execution.projectId, inputs.length);
    if (exceeded !== undefined) return { error: refusal(`quota: ${exceeded}`) };
    const now = context.clock.now();
    const names = inputs.map((_, index) => `${message.name}#${index}`);
    const waits = names.map(() => {
      const nonce = newTokenNonce();
      return { nonce, tokenHash: tokenHashOf(tokenIdOf(context.tokens.key, nonce)), spanId: newSpanId() };
    });
    const children = inputs.map((input, index) =>
      childRows(
        context,
        run,
        { workflow: callee.workflow, input, options, waitName: names[index] ?? null },
        waits[index]?.spanId ?? run.attemptSpanId,
      ),
    );
    const lease: Lease = { executionId: run.execution.id, workerId: context.workerId };
    const started = await startChildren(context.db, lease, {
      names,
      waits,
      expiresAt: new Date(now.getTime() + message.timeoutMs),
      attemptSpanId: run.attemptSpanId,
      now,
      children,
    });
    if (started.outcome === "refused") {
      abandon(context, run);
      return { stop: "abandoned" };
    }
    if (started.outcome === "nameTaken") {
      return { error: refusal(`the names "${message.name}#…" are already used by tokens of this execution`) };
    }
    if (started.outcome === "tooMany") return { error: tooManyChildren };
    return { childExecutionIds: started.childExecutionIds };
  } catch (error) {
    const sqlState = sqlStateOf(error);
    context.logger.error({ executionId: run.execution.id, sqlState }, "could not start child executions");
    return { error: { name: "StorageError", message: "the child executions could not be started" } };
  }
}
