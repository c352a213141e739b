import type { ExecutionError } from "../../db/schema/index.ts";
import { timeoutError } from "../attempt-timeout.ts";
import type { StepRecord } from "../execution-state/index.ts";
import type { ChildMessage, SerializedError } from "../sandbox/protocol.ts";
import {
  checkLogs,
  checkOutput,
  checkStepName,
  checkStepResult,
  storableError,
  storageBudgetError,
} from "../stored-values.ts";
import type { AttemptEnding } from "./attempt-ending.ts";
import type { RunningAttempt } from "./running-attempt.ts";

/**
 * What the worker makes of each message of a sandbox child, which user code can forge: the limits
 * and storable-value checks applied, decided without side effects (the callers take the transition).
 */

type StepMessage = Extract<ChildMessage, { type: "step" }>;

/** The step as it will be recorded: a step the limits refuse is recorded as failed, with `refused` as its error. */
export interface CheckedStep {
  name: string;
  outcome: StepRecord["outcome"];
  bytes: number;
  refused?: ExecutionError;
}

export function checkStep(storedBytes: number, message: StepMessage): CheckedStep {
  const refuse = (error: ExecutionError, name = message.name) => ({
    name,
    outcome: { ok: false as const, error },
    bytes: 0,
    refused: error,
  });
  const name = checkStepName(message.name);
  if (!name.ok) return refuse(name.error, "(unstorable name)");
  if (!message.outcome.ok) {
    return { name: message.name, outcome: { ok: false, error: storableError(message.outcome.error) }, bytes: 0 };
  }
  const result = checkStepResult(message.name, message.outcome.result);
  if (!result.ok) return refuse(result.error);
  const logs = checkLogs(message.logs);
  if (!logs.ok) return refuse(logs.error);
  const bytes = result.bytes + logs.bytes;
  const overBudget = storageBudgetError(storedBytes, bytes, `step "${message.name}"`);
  if (overBudget !== undefined) return refuse(overBudget);
  return { name: message.name, outcome: message.outcome, bytes };
}

const failWith = (error: ExecutionError): AttemptEnding => ({ kind: "fail", error, logs: [] });

/** A durable sleep starting at `now`, unless its name or logs are refused. */
export function sleepEnding(
  storedBytes: number,
  message: Extract<ChildMessage, { type: "sleep" }>,
  now: Date,
): AttemptEnding {
  const name = checkStepName(message.name);
  const logs = checkLogs(message.logs);
  const refused = !name.ok
    ? name.error
    : !logs.ok
      ? logs.error
      : storageBudgetError(storedBytes, logs.bytes, "the attempt's logs");
  if (refused !== undefined) return failWith(refused);
  return {
    kind: "sleep",
    name: message.name,
    wakeAt: new Date(now.getTime() + message.durationMs),
    logs: message.logs,
  };
}

/** The workflow returned or threw. */
export function finishedEnding(
  storedBytes: number,
  message: Extract<ChildMessage, { type: "finished" }>,
): AttemptEnding {
  const { outcome } = message;
  const logs = checkLogs(message.logs);
  if (!logs.ok) return failWith(logs.error);
  if (!outcome.ok) {
    const overBudget = storageBudgetError(storedBytes, logs.bytes, "the attempt's logs");
    if (overBudget !== undefined) return failWith(overBudget);
    return { kind: "fail", error: storableError(outcome.error), logs: message.logs };
  }
  const output = checkOutput(outcome.result);
  if (!output.ok) return failWith(output.error);
  const overBudget = storageBudgetError(storedBytes, output.bytes + logs.bytes, "the output and logs");
  if (overBudget !== undefined) return failWith(overBudget);
  return { kind: "succeed", result: outcome.result, logs: message.logs };
}

/** The child process exited before the attempt ended: why the worker killed it, if it did, decides. */
export function exitEnding(
  run: Pick<RunningAttempt, "timedOut" | "cancelKilled" | "timeout">,
  info: { error: SerializedError; killedByParent: boolean },
): AttemptEnding {
  if (run.timedOut) return failWith(timeoutError(run.timeout));
  if (run.cancelKilled) return { kind: "cancel" };
  if (info.killedByParent) return { kind: "requeue", reason: "the workflow process was stopped by the worker" };
  return failWith(storableError(info.error));
}

/** A message the worker could not parse, or a sandbox that could not start. */
export function malformedEnding(error: SerializedError): AttemptEnding {
  return failWith(storableError(error));
}
