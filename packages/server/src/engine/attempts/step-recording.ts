import { sqlStateOf } from "../../db/sql-state.ts";
import { type StepRecord, type StepRecorded, stepSpanOf } from "../execution-state/index.ts";
import type { ChildMessage, SerializedError } from "../sandbox/protocol.ts";
import { newSpanId } from "../trace-ids.ts";
import { cancelAttempt, endAttempt } from "./attempt-ending.ts";
import { checkStep } from "./child-outcomes.ts";
import { type AttemptContext, abandon, type RunningAttempt } from "./running-attempt.ts";
import { stopOverStepQuota } from "./step-quota-stop.ts";

type StepMessage = Extract<ChildMessage, { type: "step" }>;

/** The answer to the child: go on, stop (cancelled, or the lease is lost), or throw `error` from `ctx.step`. */
export type StepAnswer = { stop?: "cancelled" | "abandoned"; error?: SerializedError };

/**
 * Records one step the child reports. The step is where a cancel is honoured, where a worker
 * learns it lost its lease, and where an execution over its workspace's step-seconds stops; a step
 * the limits refuse is recorded as failed and thrown in the child (`failAhead` when the workflow went
 * on from it). The first step taken after the worker heard of a cancel is stored and honours it.
 */
export async function onStep(context: AttemptContext, run: RunningAttempt, message: StepMessage): Promise<StepAnswer> {
  if (run.done) return { stop: "abandoned" };
  if (run.cancelRequested) {
    if (run.cancelStepTaken) return { stop: "cancelled" };
    run.cancelStepTaken = true;
  }
  const checked = checkStep(run.storedBytes, message);
  // At once: the steps that came after it must find the attempt ended.
  if (checked.refused !== undefined && message.ahead) return failAhead(context, run, checked.refused);
  // Counted now, not once stored: the child may report the next steps before this one's answer.
  if (checked.outcome.ok) run.storedBytes += checked.bytes;
  const { startedAt, finishedAt } = stepTimes(run.handedAt, message, context.clock.now());
  const step: StepRecord = {
    name: checked.name,
    attempt: run.execution.attempt,
    sequence: message.sequence,
    startedAt,
    finishedAt,
    durationMs: message.durationMs,
    logs: checked.outcome.ok ? message.logs : [],
    span: {
      spanId: newSpanId(),
      traceId: run.execution.traceId,
      parentSpanId: run.attemptSpanId,
      projectId: run.execution.projectId,
      workflow: run.execution.workflow,
    },
    outcome: checked.outcome,
  };
  let recorded: StepRecorded;
  const storing = context.steps({ executionId: run.execution.id, step, ended: () => run.done });
  run.storing.add(storing);
  try {
    recorded = await storing;
  } catch (error) {
    const sqlState = sqlStateOf(error);
    context.logger.error({ executionId: run.execution.id, sqlState }, "could not record a step");
    const failure = {
      name: "StorageError",
      message: `the step could not be stored${sqlState === undefined ? "" : ` (SQLSTATE ${sqlState})`}`,
    };
    return message.ahead ? failAhead(context, run, failure) : { error: failure };
  } finally {
    run.storing.delete(storing);
  }
  if (recorded.outcome === "refused") {
    if (run.done) return { stop: "abandoned" };
    // Another worker holds the execution now: what this one's child did past the step dies with it.
    if (message.ahead) run.sandbox?.terminate();
    abandon(context, run);
    return { stop: "abandoned" };
  }
  run.stepSpans.push(stepSpanOf(run.execution.id, step));
  if (recorded.cancelRequested || run.cancelRequested) return cancelAttempt(context, run);
  if (await stopOverStepQuota(context, run)) return { stop: "abandoned" };
  return checked.refused === undefined ? {} : { error: checked.refused };
}

/**
 * A step's start and end on the worker's clock. The child says when it started, counted from the
 * run's hand-over: steps sent ahead arrive in bursts, so an arrival says little of when its step
 * ran, and the spans of steps one after the other would overlap. A step never ends after its
 * arrival, whatever the child says.
 */
export function stepTimes(
  handedAt: number | undefined,
  message: Pick<StepMessage, "durationMs" | "startedMs">,
  arrivedAt: Date,
): { startedAt: Date; finishedAt: Date } {
  const latest = arrivedAt.getTime() - message.durationMs;
  const reported = handedAt === undefined || message.startedMs === undefined ? latest : handedAt + message.startedMs;
  const start = Math.min(reported, latest);
  // The instants are rounded, not the offset and the duration apart: a step that started as the
  // one before it ended would otherwise start a millisecond before that one's end.
  return { startedAt: new Date(Math.round(start)), finishedAt: new Date(Math.round(start + message.durationMs)) };
}

/**
 * A step the workflow went on from before its answer, which cannot be stored as reported: the
 * refusal can no longer be thrown from its `ctx.step`, and nothing the workflow did past it may
 * leave the sandbox. The process is ended before it hears an answer, with all it held back (the
 * executions beside it go back to the queue), and the attempt fails with the refusal.
 */
function failAhead(context: AttemptContext, run: RunningAttempt, error: SerializedError): StepAnswer {
  run.sandbox?.terminate();
  endAttempt(context, run, { kind: "fail", error, logs: [] });
  return { stop: "abandoned" };
}
