import { describeWorkflowError, type ExecutionEventKind } from "@weft/contract";
import type { executionSteps, executions, LogEntry, spans } from "../db/schema/index.ts";
import { type EventPosition, encodePosition } from "./event-position.ts";

type ExecutionRow = Pick<typeof executions.$inferSelect, "id" | "workflow" | "status" | "createdAt" | "logs" | "error">;
type StepRow = Pick<
  typeof executionSteps.$inferSelect,
  "name" | "kind" | "attempt" | "startedAt" | "finishedAt" | "wakeAt" | "logs" | "sequence"
>;
type SpanRow = Pick<
  typeof spans.$inferSelect,
  "spanId" | "parentSpanId" | "kind" | "startTime" | "endTime" | "attributes" | "statusCode" | "statusMessage"
>;

export interface StoredExecution {
  execution: ExecutionRow;
  steps: StepRow[];
  /** Its execution, attempt and step spans. */
  spans: SpanRow[];
}

export interface ExecutionEventRecord {
  position: EventPosition;
  id: string;
  executionId: string;
  workflow: string;
  kind: ExecutionEventKind;
  at: Date;
  attempt: number | null;
  step: string | null;
  status: string | null;
  message: string;
  durationMs: number | null;
  fields?: Record<string, unknown> | undefined;
}

type Draft = Omit<ExecutionEventRecord, "position" | "id" | "executionId" | "workflow">;

/**
 * Events written together: a claim (the attempt starts), a stored step (with its logs), the end of an
 * attempt (its failed steps, the logs outside steps, a sleep), the end of the execution. A batch's
 * events are listed when it is recorded, so one recorded later never slips in before one already seen.
 */
interface Batch {
  recordedAt: Date;
  /** Breaks ties between batches recorded in the same millisecond: the attempt they belong to, then their place in it. */
  attemptStart: number;
  rank: number;
  events: Draft[];
}

const rank = { queued: 0, attemptStarted: 1, step: 2, sleep: 3, attemptEnded: 4, executionEnded: 5 } as const;

function logEvent(entry: LogEntry, attempt: number | null, step: string | null): Draft {
  return {
    kind: "log",
    at: new Date(entry.at),
    attempt,
    step,
    status: entry.level,
    message: entry.message,
    durationMs: null,
    ...(entry.fields === undefined ? {} : { fields: entry.fields }),
  };
}

function attemptNumber(span: SpanRow): number | null {
  const value = span.attributes["weft.execution.attempt"];
  return typeof value === "number" ? value : null;
}

function stepEvents(
  step: { name: string; attempt: number | null; startedAt: Date; finishedAt: Date; logs: LogEntry[] },
  ended: { status: "ok" | "error"; message: string },
): Draft[] {
  const durationMs = step.finishedAt.getTime() - step.startedAt.getTime();
  const base = { attempt: step.attempt, step: step.name, fields: undefined };
  return [
    {
      ...base,
      kind: "step.started",
      at: step.startedAt,
      status: null,
      message: `step ${step.name} started`,
      durationMs: null,
    },
    ...step.logs.map((entry) => logEvent(entry, step.attempt, step.name)),
    { ...base, kind: "step.ended", at: step.finishedAt, status: ended.status, message: ended.message, durationMs },
  ];
}

/** The attempt span a step or log belongs to: the last one started by `instant`. */
function owningAttempt(attempts: SpanRow[], instant: Date): SpanRow | undefined {
  let owner: SpanRow | undefined;
  for (const span of attempts) if (span.startTime.getTime() <= instant.getTime()) owner = span;
  return owner;
}

/**
 * The event stream of one execution, derived from what the engine stores anyway (the execution row,
 * its stored steps and its spans), so that recording a step costs nothing more.
 */
export function deriveEvents(stored: StoredExecution): ExecutionEventRecord[] {
  const { execution } = stored;
  const attempts = stored.spans
    .filter((span) => span.kind === "attempt")
    .sort((a, b) => a.startTime.getTime() - b.startTime.getTime());
  const batches: Batch[] = [
    {
      recordedAt: execution.createdAt,
      attemptStart: Number.NEGATIVE_INFINITY,
      rank: rank.queued,
      events: [
        {
          kind: "queued",
          at: execution.createdAt,
          attempt: null,
          step: null,
          status: null,
          message: "queued",
          durationMs: null,
        },
      ],
    },
  ];
  for (const span of attempts) {
    const attempt = attemptNumber(span);
    const resumed = span.attributes["weft.resumed"] === true;
    const attemptStart = span.startTime.getTime();
    batches.push({
      recordedAt: span.startTime,
      attemptStart,
      rank: rank.attemptStarted,
      events: [
        {
          kind: "attempt.started",
          at: span.startTime,
          attempt,
          step: null,
          status: null,
          message: `attempt ${attempt ?? "?"} ${resumed ? "resumed" : "started"}`,
          durationMs: null,
        },
      ],
    });
    if (span.endTime === null) continue;
    const failedSteps = stored.spans.filter(
      (step) => step.kind === "step" && step.parentSpanId === span.spanId && step.statusCode === "error",
    );
    const logs = execution.logs.filter((entry) => entry.attemptSpanId === span.spanId);
    const events: Draft[] = [
      ...failedSteps.flatMap((step) => {
        const name = String(step.attributes["weft.step.name"] ?? step.spanId);
        return stepEvents(
          { name, attempt, startedAt: step.startTime, finishedAt: step.endTime ?? step.startTime, logs: [] },
          { status: "error", message: `step ${name} failed: ${step.statusMessage ?? "error"}` },
        );
      }),
      ...logs.map((entry) => logEvent(entry, attempt, null)),
    ];
    events.sort((a, b) => a.at.getTime() - b.at.getTime());
    const failed = span.statusCode === "error";
    events.push({
      kind: "attempt.ended",
      at: span.endTime,
      attempt,
      step: null,
      status: failed ? "error" : "ok",
      message: `attempt ${attempt ?? "?"} ${failed ? `failed: ${span.statusMessage ?? "error"}` : (span.statusMessage ?? "ended")}`,
      durationMs: span.endTime.getTime() - attemptStart,
    });
    batches.push({ recordedAt: span.endTime, attemptStart, rank: rank.attemptEnded, events });
  }
  for (const step of stored.steps) {
    const owner = owningAttempt(attempts, step.finishedAt);
    const attemptStart = owner?.startTime.getTime() ?? Number.NEGATIVE_INFINITY;
    if (step.kind === "sleep") {
      batches.push({
        recordedAt: step.startedAt,
        attemptStart,
        rank: rank.sleep,
        events: [
          {
            kind: "sleep",
            at: step.startedAt,
            attempt: step.attempt,
            step: step.name,
            status: null,
            message: `sleep ${step.name} until ${step.wakeAt?.toISOString() ?? "?"}`,
            durationMs: step.wakeAt === null ? null : step.wakeAt.getTime() - step.startedAt.getTime(),
          },
        ],
      });
      continue;
    }
    batches.push({
      recordedAt: step.finishedAt,
      attemptStart,
      rank: rank.step,
      events: stepEvents(step, { status: "ok", message: `step ${step.name} done` }),
    });
  }
  // Logs stored before attempts named their span (or by an end without one) go with the execution's end.
  const unplaced = execution.logs.filter(
    (entry) => entry.attemptSpanId === undefined || !attempts.some((span) => span.spanId === entry.attemptSpanId),
  );
  const executionSpan = stored.spans.find((span) => span.kind === "execution");
  if (executionSpan?.endTime != null) {
    const status = execution.status;
    batches.push({
      recordedAt: executionSpan.endTime,
      attemptStart: Number.POSITIVE_INFINITY,
      rank: rank.executionEnded,
      events: [
        ...unplaced.map((entry) => logEvent(entry, null, null)),
        {
          kind: "execution.ended",
          at: executionSpan.endTime,
          attempt: null,
          step: null,
          status,
          message:
            status === "failed" && execution.error !== null
              ? `failed: ${describeWorkflowError(execution.error)}`
              : status,
          durationMs: executionSpan.endTime.getTime() - execution.createdAt.getTime(),
        },
      ],
    });
  }
  batches.sort(
    (a, b) => a.recordedAt.getTime() - b.recordedAt.getTime() || a.attemptStart - b.attemptStart || a.rank - b.rank,
  );
  return batches
    .flatMap((batch) => batch.events.map((event) => ({ event, recordedAt: batch.recordedAt })))
    .map(({ event, recordedAt }, ordinal) => {
      const position = { recordedAt, executionId: execution.id, ordinal };
      return {
        ...event,
        position,
        id: encodePosition(position),
        executionId: execution.id,
        workflow: execution.workflow,
      };
    });
}
