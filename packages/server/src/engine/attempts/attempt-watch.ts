import { timeoutError } from "../attempt-timeout.ts";
import { cancelGraceMs } from "../limits.ts";
import { endAttempt } from "./attempt-ending.ts";
import { type AttemptContext, abandon, hearCancel, type RunningAttempt } from "./running-attempt.ts";

/**
 * What the worker's heartbeat does for each running attempt: enforce its time limit, and after a
 * lease renewal, let go of an execution taken over or enforce a cancel's grace period.
 */

/** Stops an attempt past its deadline: the process is killed, and its exit fails the attempt (see `exitEnding`). */
export function enforceDeadline(context: AttemptContext, run: RunningAttempt, now: Date): void {
  if (run.done || run.timedOut || now.getTime() <= run.deadline) return;
  run.timedOut = true;
  // Without a sandbox yet, the process is still loading the bundle (whose top level may never return).
  if (run.sandbox === undefined) endAttempt(context, run, { kind: "fail", error: timeoutError(run.timeout), logs: [] });
  else run.sandbox.terminate();
}

/**
 * Acts on the renewal of the attempt's lease: `undefined` when it was not renewed (another worker
 * took the execution over), else when a cancel was requested (null: none).
 */
export function afterRenewal(
  context: AttemptContext,
  run: RunningAttempt,
  cancelRequestedAt: Date | null | undefined,
  now: Date,
): void {
  if (run.done) return;
  if (cancelRequestedAt === undefined) {
    abandon(context, run);
    return;
  }
  if (cancelRequestedAt === null) return;
  hearCancel(run);
  // A step that never returns (a loop) never reaches the boundary where a cancel is honoured.
  if (cancelGraceOver(run, cancelRequestedAt, now)) {
    run.cancelKilled = true;
    if (run.sandbox === undefined) endAttempt(context, run, { kind: "cancel" });
    else run.sandbox.terminate();
  }
}

/** The cancel has waited `cancelGraceMs` for a step boundary, and nothing else stopped the process yet. */
export function cancelGraceOver(
  run: Pick<RunningAttempt, "cancelKilled" | "timedOut">,
  cancelRequestedAt: Date,
  now: Date,
): boolean {
  return !run.cancelKilled && !run.timedOut && now.getTime() - cancelRequestedAt.getTime() >= cancelGraceMs;
}
