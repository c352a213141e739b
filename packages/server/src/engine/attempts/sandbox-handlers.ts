import type { ExecutionHandlers } from "../sandbox/sandbox-pool.ts";
import { endAttempt } from "./attempt-ending.ts";
import { exitEnding, finishedEnding, malformedEnding, sleepEnding } from "./child-outcomes.ts";
import type { AttemptContext, RunningAttempt } from "./running-attempt.ts";
import { onStep } from "./step-recording.ts";
import { onToken } from "./token-handling.ts";

/** What the worker does with each message of the attempt's sandbox child. */
export function sandboxHandlers(context: AttemptContext, run: RunningAttempt): ExecutionHandlers {
  return {
    step: (message) => onStep(context, run, message),
    token: (message) => onToken(context, run, message),
    sleep: (message) => endAttempt(context, run, sleepEnding(run.storedBytes, message, context.clock.now())),
    finished: (message) => endAttempt(context, run, finishedEnding(run.storedBytes, message)),
    malformed: (error) => endAttempt(context, run, malformedEnding(error)),
    exited: (info) => endAttempt(context, run, exitEnding(run, info)),
  };
}
