import { createHash } from "node:crypto";
import type { WorkflowManifest } from "@weft/contract";
import { and, eq, gt, sql } from "drizzle-orm";
import type { Transaction } from "../db/database.ts";
import { jsonRowsInsert } from "../db/insert-json-rows.ts";
import { preparedSql } from "../db/prepared-sql.ts";
import { deployments, executions, idempotencyKeys, type TriggerKind } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { cancelKeysOf } from "./cancel-keys.ts";
import { executionsChannel } from "./channels.ts";
import { announcedProjects } from "./claimable-accounts.ts";
import { initialState, leasedState } from "./execution-state/execution-states.ts";
import { startLocally, startsAtOnce } from "./execution-state/local-start.ts";
import { insertSpans, spansFromJson } from "./execution-state/span-writes.ts";
import { type AdmissionOutcome, admit, rateLimitedErrorName } from "./flow-control/admit.ts";
import { admissionOf, claimColumnsOf, keyValue } from "./flow-control/flow-keys.ts";
import type { LocallyStarted, LocalStarts } from "./local-starts.ts";
import { type NewExecutionRows, newExecutionKeys } from "./new-execution-rows.ts";
import { retryPolicyOf } from "./retry-policy.ts";
import { checkInput } from "./stored-values.ts";
import { newSpanId, newTraceId } from "./trace-ids.ts";

/** How long an idempotency key keeps naming the execution it created. */
export const idempotencyWindowMs = 24 * 60 * 60 * 1000;

export interface EnqueueExecutionRequest {
  projectId: string;
  deploymentId: string;
  workflow: string;
  /** Already validated against the workflow's input schema by the caller. */
  input: unknown;
  idempotencyKey?: string;
  /**
   * With `idempotencyKey`: a digest of the request (`requestDigestOf`), stored with the key so that
   * the key sent again with another request is refused rather than answered with the execution of
   * someone else's request. Without it, any request reusing the key gets the earlier execution (a
   * hosted form's page, however its answers change).
   */
  requestDigest?: string;
  trigger: { kind: TriggerKind; name?: string };
  /** For reruns: the execution whose input is reused. */
  rerunOf?: string;
  /** Labels to list it by (`tags` of `workflows.run`), already checked against their limits. */
  tags?: readonly string[] | undefined;
  /** Queued to start this long from now (`delay`); with `ttlMs`, it ends `expired` if not started that long after it was due. */
  delayMs?: number | undefined;
  ttlMs?: number | undefined;
  /** How many starts by executions lead to this one (`executions.depth`); 0, from outside, if left out. */
  depth?: number | undefined;
  /**
   * This process's worker: a new execution that a claim would lease at once (`startsAtOnce`) is
   * written leased to it when it has a slot free, and comes back as `started`, which the caller
   * begins once its transaction has committed or cancels if it does not.
   */
  localStarts?: LocalStarts | undefined;
}

/** Refuses an input over the 4 MiB limit (or one PostgreSQL cannot store) as the caller's mistake, naming the limit. */
export function storableInputFailure(input: unknown): ServiceResult<never> | undefined {
  const checked = checkInput(input);
  return checked.ok
    ? undefined
    : fail.invalid("the input cannot be accepted", [{ path: "", message: checked.error.message }]);
}

/**
 * The source an idempotency key belongs to: a trigger (`webhook:orders`, `form:contact`), or for
 * `workflows.run` the workflow it runs, so that the same key from two sources names two executions.
 */
export function idempotencyScopeOf(request: Pick<EnqueueExecutionRequest, "trigger" | "workflow">): string {
  return request.trigger.kind === "api"
    ? `api:${request.workflow}`
    : `${request.trigger.kind}:${request.trigger.name ?? request.workflow}`;
}

/**
 * Inserts a queued execution in the caller's transaction (so whoever answers 2xx does so only once
 * the row is committed) and wakes the workers with NOTIFY, which PostgreSQL delivers at commit.
 * With an idempotency key already used in the project within 24 hours, nothing is inserted and the
 * earlier execution's id is returned with `created: false`. Given `localStarts`, an execution
 * written leased to the worker is returned as `started`, for the worker once the transaction commits.
 */
export async function enqueueExecution(
  tx: Transaction,
  deps: { clock: Clock; ids: IdGenerator },
  request: EnqueueExecutionRequest,
): Promise<
  ServiceResult<{
    executionId: string;
    created: boolean;
    flowControl?: EnqueueOutcome["flowControl"];
    started?: LocallyStarted;
  }>
> {
  const unstorable = storableInputFailure(request.input);
  if (unstorable !== undefined) return unstorable;
  const now = deps.clock.now();
  const scope = idempotencyScopeOf(request);
  if (request.idempotencyKey !== undefined) {
    // Serialises triggers carrying the same key, so two concurrent ones cannot both create.
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(${JSON.stringify(["idem", request.projectId, scope, request.idempotencyKey])}, 0))`,
    );
    const [existing] = await tx
      .select({ executionId: idempotencyKeys.executionId, requestDigest: idempotencyKeys.requestDigest })
      .from(idempotencyKeys)
      .where(
        and(
          eq(idempotencyKeys.projectId, request.projectId),
          eq(idempotencyKeys.scope, scope),
          eq(idempotencyKeys.key, request.idempotencyKey),
          gt(idempotencyKeys.expiresAt, now),
        ),
      );
    if (existing !== undefined) {
      const sameRequest =
        existing.requestDigest === null ||
        request.requestDigest === undefined ||
        existing.requestDigest === request.requestDigest;
      if (!sameRequest) return fail.conflict(idempotencyKeyReusedMessage, "idempotency_key_reused");
      return ok({ executionId: existing.executionId, created: false });
    }
  }
  const [deployment] = await tx
    .select({ projectId: deployments.projectId, workflows: sql<unknown>`${deployments.manifest} -> 'workflows'` })
    .from(deployments)
    .where(eq(deployments.id, request.deploymentId));
  if (deployment === undefined || deployment.projectId !== request.projectId) {
    return fail.notFound("deployment");
  }
  const workflow = (deployment.workflows as WorkflowManifest[]).find((entry) => entry.name === request.workflow);
  if (workflow === undefined) {
    return fail.notFound({ message: `The deployment defines no workflow "${request.workflow}".` });
  }
  const queued = queuedExecutionRows(deps, request, workflow);
  // Reserved once the rows are made, so that the lease starts no earlier than the execution.
  const slot = startsAtOnce(workflow, queued) ? request.localStarts?.reserve(request.projectId) : undefined;
  try {
    const local = slot === undefined ? undefined : startLocally(queued, slot);
    const written = await insertQueued(tx, request, local?.rows ?? queued, now, scope);
    const started =
      local === undefined || slot === undefined
        ? undefined
        : { slot, execution: { ...local.execution, input: written.leasedInput } };
    return ok({
      executionId: written.executionId,
      created: true,
      ...(written.flowControl === undefined ? {} : { flowControl: written.flowControl }),
      ...(started === undefined ? {} : { started }),
    });
  } catch (error) {
    slot?.cancel();
    throw error;
  }
}

/** The rows of a new execution inserted, and the idempotency key of the request stored with them. */
async function insertQueued(
  tx: Transaction,
  request: EnqueueExecutionRequest,
  rows: NewExecutionRows,
  now: Date,
  scope: string,
): Promise<EnqueueOutcome & { leasedInput: unknown }> {
  const { outcomes, leasedInputs } = await insertNewExecutions(tx, [rows]);
  const outcome = outcomes.get(rows.execution.id) ?? { executionId: rows.execution.id };
  const { executionId } = outcome;
  if (request.idempotencyKey !== undefined) {
    const expiresAt = new Date(now.getTime() + idempotencyWindowMs);
    const requestDigest = request.requestDigest ?? null;
    await tx
      .insert(idempotencyKeys)
      .values({
        projectId: request.projectId,
        scope,
        key: request.idempotencyKey,
        executionId,
        requestDigest,
        expiresAt,
      })
      .onConflictDoUpdate({
        target: [idempotencyKeys.projectId, idempotencyKeys.scope, idempotencyKeys.key],
        set: { executionId, requestDigest, expiresAt },
      });
  }
  return { ...outcome, leasedInput: leasedInputs.get(executionId) };
}

export const idempotencyKeyReusedMessage =
  "This idempotency key was used with another request within 24 hours; send a new key for a new request.";

/**
 * The digest an idempotency key is bound to: SHA-256 of the request as its sender wrote it (the
 * body of a form or webhook, the JSON of a run's input). Headers and query are left out, since a
 * sender's retry may change them (a timestamp, a signature) while it is still the same request.
 */
export function requestDigestOf(text: string): string {
  return createHash("sha256").update(text).digest("base64url");
}

const executionRows = jsonRowsInsert(executions, newExecutionKeys);

/** Every submission and run inserts through it, so it is rendered once and, on PostgreSQL, planned once per connection. */
const insertNewStatement = preparedSql<{ leased_inputs: Record<string, unknown> | null }>(
  "insert_new_executions",
  () =>
    sql`with inserted_executions as (${executionRows.statement(sql.placeholder("executions"))}
        returning id, status, input),
      inserted_spans as (${insertSpans(spansFromJson(sql.placeholder("spans")))})
      select case when ${sql.placeholder("announce")}::boolean then pg_notify(${executionsChannel},
          coalesce((select string_agg(distinct w.billing_account_id, ',') from projects p
            join workspaces w on w.id = p.workspace_id
            where p.id = any(string_to_array(${sql.placeholder("projects")}, ','))), '')) end as announced,
        (select json_object_agg(id, input) from inserted_executions where status = ${leasedState}) as leased_inputs`,
);

/**
 * Inserts new executions with their spans and wakes the workers, naming the accounts that pay for
 * the queued executions' workspaces, in one statement of the caller's transaction (PostgreSQL
 * delivers the NOTIFY at commit). An execution written already leased (`local-starts.ts`) is no
 * worker's to claim, so a batch of those alone wakes none; its input comes back as stored, by id,
 * so that its first attempt sees the keys in the order every later attempt reads them in (jsonb's,
 * not the sender's). The usage meters count them from there (billing/metering.ts).
 */
export async function insertNewExecutions(
  tx: Transaction,
  given: readonly NewExecutionRows[],
): Promise<{ leasedInputs: ReadonlyMap<string, unknown>; outcomes: ReadonlyMap<string, EnqueueOutcome> }> {
  const { rows, outcomes } = await admitted(tx, given);
  const queued = rows.filter((row) => row.execution.status === initialState);
  // Named by account, so that a worker running that account at its share skips the claim,
  // which would read the whole backlog to find nothing (see `claimable-accounts.ts`).
  const [result] = await insertNewStatement.execute(tx, {
    announce: queued.length > 0,
    projects: announcedProjects(queued.map((row) => row.execution.projectId)),
    executions: executionRows.json(rows.map((row) => row.execution)),
    spans: JSON.stringify(rows.flatMap((row) => row.spans)),
  });
  return { leasedInputs: new Map(Object.entries(result?.leased_inputs ?? {})), outcomes };
}

/** What one enqueue came to: its execution, and how flow control (`flow-control/`) dealt with it. */
export interface EnqueueOutcome {
  /** Its own new execution's id, or for a debounced trigger the queued execution it moved. */
  executionId: string;
  /** `debounced`: folded into a queued execution; `skipped`: over the rate limit, written cancelled, never to run. */
  flowControl?: "debounced" | "skipped";
}

/**
 * New executions' rows as their workflows' throttles, rate limits and debounces admit them (`admit`),
 * with each one's outcome by the id it was made with. A skipped execution is written as it ends,
 * `cancelled` with a `RateLimitedError`, so that listing executions shows it; a debounced one is
 * not written, the queued execution it moved standing for it.
 */
async function admitted(
  tx: Transaction,
  rows: readonly NewExecutionRows[],
): Promise<{ rows: NewExecutionRows[]; outcomes: Map<string, EnqueueOutcome> }> {
  const outcomes = new Map<string, EnqueueOutcome>();
  if (rows.every((row) => row.admission === undefined)) {
    for (const row of rows) outcomes.set(row.execution.id, { executionId: row.execution.id });
    return { rows: [...rows], outcomes };
  }
  const candidates = rows.map((row) => ({
    id: row.execution.id,
    projectId: row.execution.projectId,
    workflow: row.execution.workflow,
    input: row.execution.input,
    cancelKeys: row.execution.cancelKeys,
    runAt: row.execution.runAt,
    deploymentId: row.execution.deploymentId,
    admission: row.admission,
  }));
  const now = rows[0]?.execution.createdAt ?? new Date();
  const decided = await admit(tx, now, candidates);
  const kept: NewExecutionRows[] = [];
  rows.forEach((row, index) => {
    const candidate = candidates[index];
    const outcome: AdmissionOutcome = decided.get(row.execution.id) ?? { kind: "insert" };
    if (candidate === undefined || outcome.kind === "debounced") {
      outcomes.set(row.execution.id, {
        executionId: outcome.kind === "debounced" ? outcome.executionId : row.execution.id,
        flowControl: "debounced",
      });
      return;
    }
    if (outcome.kind === "skip") {
      kept.push(skippedRows(row, outcome.reason));
      outcomes.set(row.execution.id, { executionId: row.execution.id, flowControl: "skipped" });
      return;
    }
    // A throttle may have moved the start later: the time to live counts from when it is due.
    const { expiresAt, runAt: dueAt } = row.execution;
    const movedExpiry =
      expiresAt === null || expiresAt === undefined
        ? expiresAt
        : new Date(expiresAt.getTime() + (candidate.runAt.getTime() - dueAt.getTime()));
    kept.push({
      ...row,
      execution: {
        ...row.execution,
        input: candidate.input,
        cancelKeys: candidate.cancelKeys,
        runAt: candidate.runAt,
        expiresAt: movedExpiry,
      },
    });
    outcomes.set(row.execution.id, { executionId: row.execution.id });
  });
  return { rows: kept, outcomes };
}

/** A new execution's rows as a skip writes them: ended, cancelled by the rate limit, its execution span closed. */
function skippedRows(row: NewExecutionRows, reason: string): NewExecutionRows {
  const at = row.execution.createdAt;
  return {
    ...row,
    execution: {
      ...row.execution,
      status: "cancelled",
      finishedAt: at,
      error: { name: rateLimitedErrorName, message: reason },
      debounceKey: null,
    },
    spans: row.spans.map((span) =>
      span.span_id === row.execution.executionSpanId
        ? { ...span, end_time: at.toISOString(), status_code: "error", status_message: reason }
        : span,
    ),
  };
}

/** The rows a queued execution starts with: the execution itself, and its trigger and execution spans. */
export function queuedExecutionRows(
  deps: { clock: Clock; ids: IdGenerator },
  request: EnqueueExecutionRequest,
  workflow: WorkflowManifest,
): NewExecutionRows {
  const now = deps.clock.now();
  const input = request.input ?? null;
  const admission = admissionOf(workflow, input);
  const retries = retryPolicyOf(workflow);
  const executionId = deps.ids("execution");
  const traceId = newTraceId();
  const triggerSpanId = newSpanId();
  const executionSpanId = newSpanId();
  const nowText = now.toISOString();
  // A debounced trigger runs a period after it, unless another moves it on; a delayed run, its delay after it.
  const runAt = new Date(
    now.getTime() + (workflow.debounce === undefined ? 0 : workflow.debounce.periodMs) + (request.delayMs ?? 0),
  );
  const common = {
    trace_id: traceId,
    project_id: request.projectId,
    execution_id: executionId,
    workflow: request.workflow,
  };
  return {
    execution: {
      id: executionId,
      projectId: request.projectId,
      deploymentId: request.deploymentId,
      workflow: request.workflow,
      status: initialState,
      input,
      attempt: 1,
      maxAttempts: retries.maxAttempts,
      retryMinDelayMs: retries.minDelayMs,
      retryMaxDelayMs: retries.maxDelayMs,
      timeoutMs: workflow.timeoutMs ?? null,
      ...claimColumnsOf(workflow, input),
      debounceKey: workflow.debounce === undefined ? null : keyValue(workflow.debounce.key, input),
      cancelKeys: cancelKeysOf(workflow, request.projectId, input),
      runAt,
      triggerKind: request.trigger.kind,
      triggerName: request.trigger.name ?? null,
      rerunOf: request.rerunOf ?? null,
      parentExecutionId: null,
      parentWaitName: null,
      depth: request.depth ?? 0,
      tags: [...(request.tags ?? [])],
      expiresAt: request.ttlMs === undefined ? null : new Date(runAt.getTime() + request.ttlMs),
      traceId,
      executionSpanId,
      logs: [],
      createdAt: now,
      leaseOwner: null,
      leaseExpiresAt: null,
      startedAt: null,
      finishedAt: null,
      error: null,
    },
    admission,
    spans: [
      {
        ...common,
        span_id: triggerSpanId,
        parent_span_id: null,
        name: `trigger ${request.trigger.kind}${request.trigger.name === undefined ? "" : ` ${request.trigger.name}`}`,
        kind: "trigger",
        start_time: nowText,
        end_time: nowText,
        attributes: {
          "weft.trigger.kind": request.trigger.kind,
          ...(request.trigger.name === undefined ? {} : { "weft.trigger.name": request.trigger.name }),
          "weft.deployment.id": request.deploymentId,
          ...(request.idempotencyKey === undefined ? {} : { "weft.idempotency_key": request.idempotencyKey }),
        },
        status_code: "ok",
        status_message: null,
      },
      {
        ...common,
        span_id: executionSpanId,
        parent_span_id: triggerSpanId,
        name: `execution ${request.workflow}`,
        kind: "execution",
        start_time: nowText,
        end_time: null,
        attributes: { "weft.execution.id": executionId, "weft.workflow": request.workflow },
        status_code: "unset",
        status_message: null,
      },
    ],
  };
}
