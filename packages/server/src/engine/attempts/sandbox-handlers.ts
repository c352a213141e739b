import type { ExecutionHandlers } from "../sandbox/execution-handlers.ts";
import type { SandboxLogEntry, SerializedError } from "../sandbox/protocol.ts";
import { endAttempt } from "./attempt-ending.ts";
import { onStartChild, onStartChildren } from "./child-handling.ts";
import { exitEnding, finishedEnding, malformedEnding, sleepEnding } from "./child-outcomes.ts";
import { onEventWait, onSendEvent } from "./event-handling.ts";
import type { AttemptContext, RunningAttempt } from "./running-attempt.ts";
import { type Scrub, scrubJson } from "./secret-scrubber.ts";
import { onStep } from "./step-recording.ts";
import { onToken } from "./token-handling.ts";

function scrubLogs(logs: SandboxLogEntry[], scrub: Scrub): SandboxLogEntry[] {
  return logs.map((entry) => ({
    ...entry,
    message: scrub(entry.message),
    ...(entry.fields === undefined ? {} : { fields: scrubJson(entry.fields, scrub) as Record<string, unknown> }),
  }));
}

function scrubError(error: SerializedError, scrub: Scrub): SerializedError {
  return {
    name: scrub(error.name),
    message: scrub(error.message),
    ...(error.stack === undefined ? {} : { stack: scrub(error.stack) }),
  };
}

/**
 * What the worker does with each message of the attempt's sandbox child. Logs and error messages
 * are scrubbed of the project's secret values first, so none is stored.
 */
export function sandboxHandlers(context: AttemptContext, run: RunningAttempt): ExecutionHandlers {
  const { scrub } = run;
  return {
    step: (message) =>
      onStep(context, run, {
        ...message,
        logs: scrubLogs(message.logs, scrub),
        outcome: message.outcome.ok ? message.outcome : { ok: false, error: scrubError(message.outcome.error, scrub) },
      }),
    token: (message) => onToken(context, run, { ...message, logs: scrubLogs(message.logs, scrub) }),
    eventWait: (message) => onEventWait(context, run, { ...message, logs: scrubLogs(message.logs, scrub) }),
    sendEvent: (message) => onSendEvent(context, run, message),
    startChild: (message) => onStartChild(context, run, message),
    startChildren: (message) => onStartChildren(context, run, message),
    sleep: (message) =>
      endAttempt(
        context,
        run,
        sleepEnding(run.storedBytes, { ...message, logs: scrubLogs(message.logs, scrub) }, context.clock.now()),
      ),
    finished: (message) =>
      endAttempt(
        context,
        run,
        finishedEnding(run.storedBytes, {
          ...message,
          logs: scrubLogs(message.logs, scrub),
          outcome: message.outcome.ok
            ? message.outcome
            : { ok: false, error: scrubError(message.outcome.error, scrub) },
        }),
      ),
    malformed: (error) => endAttempt(context, run, malformedEnding(scrubError(error, scrub))),
    exited: (info) => endAttempt(context, run, exitEnding(run, { ...info, error: scrubError(info.error, scrub) })),
  };
}
