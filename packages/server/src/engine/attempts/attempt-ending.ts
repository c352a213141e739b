import { isDatabaseUnavailable, retryWhileUnavailable } from "../../db/database-unavailable.ts";
import type { ExecutionError, LogEntry } from "../../db/schema/index.ts";
import { sqlStateOf } from "../../db/sql-state.ts";
import {
  type AttemptClose,
  cancelledError,
  expiredError,
  type SpanStatus,
  sleep,
  type TransitionOutcome,
} from "../execution-state/index.ts";
import { retryDelayMs } from "../retry-policy.ts";
import type { AttemptContext, RunningAttempt } from "./running-attempt.ts";

/** How an attempt ends, as decided from what its sandbox reported (see `child-outcomes.ts`). */
export type AttemptEnding =
  | { kind: "succeed"; result: { value?: unknown }; logs: LogEntry[] }
  /** Retried while attempts are left, else the execution fails. */
  | { kind: "fail"; error: ExecutionError; logs: LogEntry[] }
  /** The execution fails whatever attempts it has left: it is not run again. */
  | { kind: "giveUp"; error: ExecutionError }
  | { kind: "cancel" }
  /** A run claimed past its time to live: it ends `expired`, none of its code run. */
  | { kind: "expire" }
  /** Back to the queue without using up an attempt (shutdown, the worker stopped the process). */
  | { kind: "requeue"; reason: string }
  | { kind: "sleep"; name: string; wakeAt: Date; logs: LogEntry[] };

function closeOf(context: AttemptContext, run: RunningAttempt, status: SpanStatus, logs: LogEntry[]): AttemptClose {
  return {
    now: context.clock.now(),
    attemptSpanId: run.attemptSpanId,
    attemptStatus: status,
    logs: logs.map((entry) => ({ ...entry, attemptSpanId: run.attemptSpanId })),
    // Copied, not taken: an end tried again after the database came back carries them too.
    stepSpans: [...run.stepSpans],
  };
}

/**
 * Takes the transition `ending` names; a final one sends the execution's spans to the OTLP collector.
 * True when the execution ended.
 */
async function takeEnding(context: AttemptContext, run: RunningAttempt, ending: AttemptEnding): Promise<boolean> {
  const { execution } = run;
  const executionId = execution.id;
  let final: TransitionOutcome | undefined;
  switch (ending.kind) {
    case "succeed":
      final = await context.ends("succeed", {
        executionId,
        close: closeOf(context, run, { code: "ok" }, ending.logs),
        values: ending.result,
      });
      break;
    case "fail": {
      const close = closeOf(context, run, { code: "error", message: ending.error.message }, ending.logs);
      if (execution.attempt < execution.maxAttempts) {
        const delay = retryDelayMs(
          {
            maxAttempts: execution.maxAttempts,
            minDelayMs: execution.retryMinDelayMs,
            maxDelayMs: execution.retryMaxDelayMs,
          },
          execution.attempt,
        );
        const runAt = new Date(close.now.getTime() + delay);
        const retried = await context.ends("retry", { executionId, close, values: { error: ending.error, runAt } });
        if (retried === "taken") context.fallsDue(execution.accountId, runAt);
        return false;
      }
      final = await context.ends("fail", { executionId, close, values: { error: ending.error } });
      break;
    }
    case "giveUp":
      final = await context.ends("fail", {
        executionId,
        close: closeOf(context, run, { code: "error", message: ending.error.message }, []),
        values: { error: ending.error },
      });
      break;
    case "cancel":
      final = await context.ends("cancel", {
        executionId,
        close: closeOf(context, run, { code: "error", message: cancelledError.message }, []),
        values: {},
      });
      break;
    case "expire":
      final = await context.ends("expire", {
        executionId,
        close: closeOf(context, run, { code: "error", message: expiredError.message }, []),
        values: {},
      });
      break;
    case "requeue":
      await context.ends("requeue", {
        executionId,
        close: closeOf(context, run, { code: "error", message: ending.reason }, []),
        values: {},
      });
      return false;
    case "sleep": {
      const slept = await sleep(
        context.db,
        { executionId, workerId: context.workerId },
        closeOf(context, run, { code: "ok", message: `sleeping (${ending.name})` }, ending.logs),
        { name: ending.name, attempt: execution.attempt, sequence: 0, wakeAt: ending.wakeAt },
      );
      if (slept === "taken") context.fallsDue(execution.accountId, ending.wakeAt);
      return false;
    }
  }
  if (final === "taken") context.spanExport?.exportExecution(executionId);
  return final === "taken";
}

/**
 * Fails an execution whose end the database refused (a value it cannot store that slipped through,
 * a constraint): left running, its lease would lapse and the next claim would fail the same way,
 * for ever.
 */
async function failForStorage(context: AttemptContext, run: RunningAttempt, sqlState: string | undefined) {
  const error: ExecutionError = {
    name: "StorageError",
    message: `the end of the attempt could not be stored${sqlState === undefined ? "" : ` (SQLSTATE ${sqlState})`}`,
  };
  const outcome = await context.ends("fail", {
    executionId: run.execution.id,
    close: closeOf(context, run, { code: "error", message: error.message }, []),
    values: { error },
  });
  if (outcome === "taken") context.spanExport?.exportExecution(run.execution.id);
}

/**
 * Ends the attempt once, then frees its slot. An end the database could not be reached for (a
 * restart, a failover) is tried again while it cannot be, for as long as a restart takes: the end
 * is taken only by the lease's holder, so one that did commit is not taken twice. If the database
 * refuses the end, the execution fails with a storage error; only if that too fails (the database
 * is gone) does the lease lapse. Database errors are logged by SQLSTATE: their text quotes the
 * statement's parameters.
 */
export function endAttempt(context: AttemptContext, run: RunningAttempt, ending: AttemptEnding): void {
  if (run.done) return;
  run.done = true;
  const executionId = run.execution.id;
  const settled: Promise<void> = stepsSettled(run)
    .then(() => takeEnding(context, run, ending))
    .catch((error: unknown) =>
      isDatabaseUnavailable(error)
        ? retryWhileUnavailable(() => takeEnding(context, run, ending))
        : Promise.reject(error),
    )
    .catch(async (error: unknown) => {
      const sqlState = sqlStateOf(error);
      context.logger.error({ executionId, sqlState }, "could not record the end of an attempt; failing the execution");
      await failForStorage(context, run, sqlState);
      return false;
    })
    .catch((error: unknown) => {
      context.logger.error(
        { executionId, sqlState: sqlStateOf(error) },
        "could not record the failure of an execution",
      );
      return false;
    })
    .then((ended) => {
      context.finishing.delete(settled);
      context.release(executionId, ended);
    });
  context.finishing.add(settled);
}

/** Honours a cancel where the child asks something: its sandbox lets go of the execution, and the attempt ends cancelled. */
export function cancelAttempt(context: AttemptContext, run: RunningAttempt): { stop: "cancelled" } {
  run.sandbox?.abandon();
  endAttempt(context, run, { kind: "cancel" });
  return { stop: "cancelled" };
}

/**
 * Once the statements storing the attempt's steps have settled (`RunningAttempt.storing`): an end
 * taken meanwhile could commit before a step the attempt went on from, and let another attempt run it.
 */
async function stepsSettled(run: RunningAttempt): Promise<void> {
  await Promise.allSettled(run.storing);
}

/** Hands a running attempt back to the queue as the worker stops; its slot is not released (the worker is going). */
export async function requeueOnStop(context: AttemptContext, run: RunningAttempt): Promise<TransitionOutcome> {
  await stepsSettled(run);
  return context.ends("requeue", {
    executionId: run.execution.id,
    close: closeOf(context, run, { code: "error", message: "the worker stopped" }, []),
    values: {},
  });
}
