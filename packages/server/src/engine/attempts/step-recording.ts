import { sqlStateOf } from "../../db/sql-state.ts";
import { type StepRecord, type StepRecorded, stepSpanOf } from "../execution-state/index.ts";
import type { ChildMessage, SerializedError } from "../sandbox/protocol.ts";
import { newSpanId } from "../trace-ids.ts";
import { cancelAttempt } from "./attempt-ending.ts";
import { checkStep } from "./child-outcomes.ts";
import { type AttemptContext, abandon, type RunningAttempt } from "./running-attempt.ts";
import { stopOverStepQuota } from "./step-quota-stop.ts";

/** The answer to the child: go on, stop (cancelled, or the lease is lost), or throw `error` from `ctx.step`. */
export type StepAnswer = { stop?: "cancelled" | "abandoned"; error?: SerializedError };

/**
 * Records one step the child reports. The step is where a cancel is honoured, where a worker
 * learns it lost its lease, and where an execution over its workspace's step-seconds stops; a step
 * the limits refuse is recorded as failed and thrown in the child.
 */
export async function onStep(
  context: AttemptContext,
  run: RunningAttempt,
  message: Extract<ChildMessage, { type: "step" }>,
): Promise<StepAnswer> {
  if (run.done) return { stop: "abandoned" };
  const checked = checkStep(run.storedBytes, message);
  const finishedAt = context.clock.now();
  const step: StepRecord = {
    name: checked.name,
    attempt: run.execution.attempt,
    sequence: message.sequence,
    startedAt: new Date(finishedAt.getTime() - Math.round(message.durationMs)),
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
  try {
    recorded = await context.steps({ executionId: run.execution.id, step });
  } catch (error) {
    const sqlState = sqlStateOf(error);
    context.logger.error({ executionId: run.execution.id, sqlState }, "could not record a step");
    const message = `the step could not be stored${sqlState === undefined ? "" : ` (SQLSTATE ${sqlState})`}`;
    return { error: { name: "StorageError", message } };
  }
  if (recorded.outcome === "refused") {
    abandon(context, run);
    return { stop: "abandoned" };
  }
  run.stepSpans.push(stepSpanOf(run.execution.id, step));
  if (recorded.cancelRequested || run.cancelRequested) return cancelAttempt(context, run);
  if (checked.outcome.ok) run.storedBytes += checked.bytes;
  if (await stopOverStepQuota(context, run)) return { stop: "abandoned" };
  return checked.refused === undefined ? {} : { error: checked.refused };
}
