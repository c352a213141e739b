import { eventLimits, type WorkflowManifest } from "@weft/contract";
import { and, desc, eq, gt, sql } from "drizzle-orm";
import type { Backpressure } from "../backpressure/backpressure.ts";
import type { QuotaGate } from "../billing/quota-gate.ts";
import type { Database, Transaction } from "../db/database.ts";
import { retryOnDeadlock } from "../db/deadlock-retry.ts";
import { type EventSourceKind, events, projects, usageDeltas } from "../db/schema/index.ts";
import { getActiveDeployment } from "../deployments/read-deployments.ts";
import {
  idempotencyKeyReusedMessage,
  idempotencyWindowMs,
  insertNewExecutions,
  queuedExecutionRows,
  requestDigestOf,
} from "../engine/enqueue-execution.ts";
import type { EndStatementParts } from "../engine/execution-state/index.ts";
import { maxExecutionDepth } from "../engine/limits.ts";
import type { SpanExport } from "../engine/span-export.ts";
import { validateJsonSchema } from "../schemas/validate-json-schema.ts";
import type { Clock } from "../shared/clock.ts";
import type { IdGenerator } from "../shared/ids.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";
import { cancelOnEvent, cancelTargets } from "./cancel-on-event.ts";
import { checkEvent } from "./check-event.ts";
import type { EventAsInput } from "./event-input.ts";
import { subscribedWorkflows } from "./event-subscriptions.ts";
import { resolveEventWaits } from "./resolve-event-waits.ts";

export interface SendEventRequest {
  projectId: string;
  name: string;
  data: unknown;
  /**
   * The idempotency id: the same one within 24 hours is answered with the first send's result if
   * it is the same send (`requestDigest`), and refused otherwise.
   */
  id?: string | undefined;
  /**
   * What `id` is bound to: by default the name and the data as JSON (`eventRequestDigest`). A
   * webhook binds it to the name and its body as sent, since a retried delivery may change a header
   * that its data holds; null binds it to nothing, for an id that names the send itself (the default
   * id of a workflow's send, sent again by its step run again after a crash, whatever it computes).
   */
  requestDigest?: string | null | undefined;
  source: { kind: EventSourceKind; name?: string | undefined };
  /**
   * The depth (`executions.depth`) of the executions the event starts: its sending execution's + 1
   * for `ctx.sendEvent`, 0 (left out) from outside. Past `maxExecutionDepth` a send that would start
   * any is refused, so a workflow that sends the event it is started by ends.
   */
  depth?: number | undefined;
}

export interface SendEventDependencies {
  clock: Clock;
  ids: IdGenerator;
  endStatementParts: EndStatementParts;
  /** Left out by the engine's own callers (`ctx.sendEvent`), which neither limits, as for runs. */
  quotas?: QuotaGate | undefined;
  backpressure?: Backpressure | undefined;
  spanExport?: SpanExport | undefined;
}

export interface SentEvent {
  id: string;
  projectId: string;
  name: string;
  data: unknown;
  idempotencyId: string | null;
  source: { kind: EventSourceKind; name: string | null };
  sentAt: Date;
  executions: { workflow: string; executionId: string }[];
  resumed: number;
  cancelled: number;
}

export interface SendEventResult extends SentEvent {
  /** An earlier send with the same idempotency id, answered as it was: this one did nothing. */
  duplicate: boolean;
  /** Subscribed workflows the event did not start, as their input schema refuses it. */
  skipped: { workflow: string; message: string }[];
}

/** What a send does, planned from the active deployment's manifest before its transaction. */
interface SendPlan {
  deploymentId: string | undefined;
  workflows: readonly WorkflowManifest[];
}

/**
 * Sends an event: in one transaction it completes the waits for it (`ctx.waitForEvent`), cancels
 * the executions its `cancelOn` entries select, starts every workflow of the active deployment
 * subscribed to it (`on`, `if`) with the event as input, and stores it with what it did. A refusal
 * (the name, the id, the data, an id another send used, an unknown project, the depth of a
 * workflow's send, the plan's quota, a backlog) changes nothing.
 * `beforeCommit` may throw to roll everything back (the ingress budget).
 */
export async function sendEvent(
  db: Database,
  deps: SendEventDependencies,
  request: SendEventRequest,
  options: { beforeCommit?: () => void } = {},
): Promise<ServiceResult<SendEventResult>> {
  const checked = checkEvent(request);
  if (!checked.ok) return checked;
  const deployment = await getActiveDeployment(db, request.projectId);
  const plan: SendPlan = { deploymentId: deployment?.id, workflows: deployment?.manifest.workflows ?? [] };
  const now = deps.clock.now();
  const starts = subscribedWorkflows(plan.workflows, {
    id: "",
    name: request.name,
    data: checked.value.data,
    sentAt: "",
  });
  if (starts.length > 0 && (request.id === undefined || (await earlierSend(db, request, now)) === undefined)) {
    const depth = request.depth ?? 0;
    if (depth > maxExecutionDepth) return fail.conflict(tooDeepMessage(depth));
    const backlogged = await deps.backpressure?.refusal(request.projectId, starts.length);
    if (backlogged !== undefined) return fail.backlogged(backlogged);
    const exceeded = await deps.quotas?.admit(request.projectId, starts.length);
    if (exceeded !== undefined) return fail.quotaExceeded(exceeded);
  }
  const requestDigest =
    request.id === undefined
      ? null
      : request.requestDigest === undefined
        ? eventRequestDigest(request.name, JSON.stringify(checked.value.data))
        : request.requestDigest;
  // A waiting execution's token is locked before its row here, the other way round in a cancel:
  // PostgreSQL may pick this transaction as a deadlock's victim, and it runs again whole.
  const sent = await retryOnDeadlock(() =>
    db.transaction(async (tx) => {
      const result = await sendEventInTransaction(
        tx,
        deps,
        { ...request, data: checked.value.data, requestDigest },
        plan,
        now,
      );
      // May throw to roll the send back (an ingress request answered 503 meanwhile).
      options.beforeCommit?.();
      return result;
    }),
  );
  if (sent.ok) for (const executionId of sent.value.endedNow) deps.spanExport?.exportExecution(executionId);
  if (!sent.ok) return sent;
  const { endedNow: _endedNow, ...result } = sent.value;
  return ok(result);
}

/** Why a workflow's send that would start executions `depth` deep is refused. */
function tooDeepMessage(depth: number): string {
  return `depth: the executions this event starts would be ${depth} starts deep, past the limit (maxExecutionDepth) of ${maxExecutionDepth} for executions started by executions, so it is not sent`;
}

/**
 * What an event's idempotency id is bound to: SHA-256 of its name and its data as the sender wrote
 * it (as JSON, or a webhook's body), as an idempotency key is bound to its request.
 */
export function eventRequestDigest(name: string, dataAsSent: string): string {
  return requestDigestOf(JSON.stringify([name, dataAsSent]));
}

/** The send the idempotency id names, if it was sent within 24 hours, with what the id is bound to. */
async function earlierSend(
  db: Database | Transaction,
  request: Pick<SendEventRequest, "projectId" | "id">,
  now: Date,
): Promise<(SentEvent & { requestDigest: string | null }) | undefined> {
  if (request.id === undefined) return undefined;
  const [row] = await db
    .select()
    .from(events)
    .where(
      and(
        eq(events.projectId, request.projectId),
        eq(events.idempotencyId, request.id),
        gt(events.sentAt, new Date(now.getTime() - idempotencyWindowMs)),
      ),
    )
    .orderBy(desc(events.sentAt))
    .limit(1);
  return row === undefined ? undefined : { ...toSentEvent(row), requestDigest: row.requestDigest };
}

export function toSentEvent(row: typeof events.$inferSelect): SentEvent {
  return {
    id: row.id,
    projectId: row.projectId,
    name: row.name,
    data: row.data,
    idempotencyId: row.idempotencyId,
    source: { kind: row.sourceKind, name: row.sourceName },
    sentAt: row.sentAt,
    executions: row.executions,
    resumed: row.resumed,
    cancelled: row.cancelled,
  };
}

async function sendEventInTransaction(
  tx: Transaction,
  deps: SendEventDependencies,
  request: SendEventRequest & { requestDigest: string | null },
  plan: SendPlan,
  now: Date,
): Promise<ServiceResult<SendEventResult & { endedNow: string[] }>> {
  const [project] = await tx.select({ id: projects.id }).from(projects).where(eq(projects.id, request.projectId));
  if (project === undefined) return fail.notFound("project");
  if (request.id !== undefined) {
    // Serialises sends carrying the same id, so that two at once cannot both act.
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtextextended(${JSON.stringify(["event", request.projectId, request.id])}, 0))`,
    );
    const earlier = await earlierSend(tx, request, now);
    if (earlier !== undefined) {
      const { requestDigest, ...sent } = earlier;
      const sameSend =
        requestDigest === null || request.requestDigest === null || requestDigest === request.requestDigest;
      // Nothing is written: a retry is answered, another send under a used id refused, as a run's key is.
      if (!sameSend) return fail.conflict(idempotencyKeyReusedMessage, "idempotency_key_reused");
      return ok({ ...sent, duplicate: true, skipped: [], endedNow: [] });
    }
  }
  const event: EventAsInput = {
    id: deps.ids("event"),
    name: request.name,
    data: request.data,
    sentAt: now.toISOString(),
  };
  const resumed = await resolveEventWaits(tx, { projectId: request.projectId, event, now });
  const { cancelled, endedNow } = await cancelOnEvent(tx, deps, {
    projectId: request.projectId,
    targets: cancelTargets(plan.workflows, request.projectId, event),
    now,
    limit: eventLimits.cancelledPerSend,
  });
  const skipped: SendEventResult["skipped"] = [];
  const rows = [];
  for (const workflow of subscribedWorkflows(plan.workflows, event)) {
    let input: unknown = event;
    if (workflow.inputSchema !== undefined) {
      const validation = validateJsonSchema(workflow.inputSchema, event);
      if (!validation.ok) {
        skipped.push({ workflow: workflow.name, message: validation.issues.map((issue) => issue.message).join("; ") });
        continue;
      }
      input = validation.value;
    }
    rows.push(
      queuedExecutionRows(
        deps,
        {
          projectId: request.projectId,
          deploymentId: plan.deploymentId ?? "",
          workflow: workflow.name,
          input,
          trigger: { kind: "event", name: event.name },
          depth: request.depth ?? 0,
        },
        workflow,
      ),
    );
  }
  const inserted = rows.length === 0 ? undefined : await insertNewExecutions(tx, rows);
  // Flow control may fold a start into a queued execution (debounce): that one is what the event started.
  const started = rows.map((row) => ({
    workflow: row.execution.workflow,
    executionId: inserted?.outcomes.get(row.execution.id)?.executionId ?? row.execution.id,
  }));
  const stored: SentEvent = {
    id: event.id,
    projectId: request.projectId,
    name: event.name,
    data: event.data,
    idempotencyId: request.id ?? null,
    source: { kind: request.source.kind, name: request.source.name ?? null },
    sentAt: now,
    executions: started,
    resumed,
    cancelled,
  };
  // Metered as a delta, as an execution's end is: no row lock on the day's counter for a burst of sends.
  await tx.insert(usageDeltas).values({
    projectId: request.projectId,
    at: now,
    triggerKind: "event",
    events: 1,
    bytes: Buffer.byteLength(JSON.stringify(event.data)),
  });
  await tx.insert(events).values({
    id: stored.id,
    projectId: stored.projectId,
    name: stored.name,
    data: stored.data,
    idempotencyId: stored.idempotencyId,
    requestDigest: request.requestDigest,
    sourceKind: stored.source.kind,
    sourceName: stored.source.name,
    sentAt: now,
    executions: started,
    resumed,
    cancelled,
  });
  return ok({ ...stored, duplicate: false, skipped, endedNow });
}
