import { sqlStateOf } from "../../db/sql-state.ts";
import { endAttempt } from "./attempt-ending.ts";
import type { AttemptContext, RunningAttempt } from "./running-attempt.ts";
import type { StepQuota } from "./step-quota.ts";

/**
 * Fails the execution (whatever attempts it has left: more would run over the quota too) when its
 * workspace has no step time left this month, counting the attempt's steps not stored yet. Asked
 * before an attempt runs and after each step it records, so an execution that crosses the quota
 * runs no step past the one in flight. True when it ended the attempt. A read that fails lets the
 * attempt go on (logged): the next step asks again.
 */
export async function stopOverStepQuota(context: AttemptContext, run: RunningAttempt): Promise<boolean> {
  const quota = context.stepQuota;
  if (quota === undefined) return false;
  let exceeded: Awaited<ReturnType<StepQuota["exceeded"]>>;
  try {
    exceeded = await quota.exceeded(run.execution.projectId, run.stepSpans);
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
