import { billedStepMs } from "../../billing/metering.ts";
import { sqlStateOf } from "../../db/sql-state.ts";
import { endAttempt } from "./attempt-ending.ts";
import type { AttemptContext, RunningAttempt } from "./running-attempt.ts";

/**
 * Fails the execution (whatever attempts it has left: more would run over the quota too) when its
 * workspace has no step time left this month, counting the attempt's steps not stored yet. Asked
 * before an attempt runs and after each step it records, so an execution that crosses the quota
 * runs no step past the one in flight. True when it ended the attempt. A read that fails lets the
 * attempt go on (logged): the next step asks again.
 */
export async function stopOverStepQuota(context: AttemptContext, run: RunningAttempt): Promise<boolean> {
  const unstoredMs = run.stepSpans.reduce((total, span) => total + billedStepMs(span.start_time, span.end_time), 0);
  let exceeded: Awaited<ReturnType<AttemptContext["stepQuota"]["exceeded"]>>;
  try {
    exceeded = await context.stepQuota.exceeded(run.execution.projectId, unstoredMs);
  } catch (error) {
    const fields = { executionId: run.execution.id, sqlState: sqlStateOf(error) };
    context.logger.error(fields, "could not read the step-seconds quota");
    return false;
  }
  if (exceeded === undefined) return false;
  run.sandbox?.abandon();
  endAttempt(context, run, { kind: "giveUp", error: { name: "QuotaExceededError", message: exceeded.message } });
  return true;
}
