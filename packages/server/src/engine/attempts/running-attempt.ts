import type { JsonSchema } from "@weft/contract";
import type { Database } from "../../db/database.ts";
import type { Clock } from "../../shared/clock.ts";
import type { Logger } from "../../shared/logger.ts";
import { type AttemptTimeout, attemptTimeout, type TimeoutPolicy } from "../attempt-timeout.ts";
import type { ClaimedExecution, SpanRow } from "../execution-state/index.ts";
import type { SandboxRun } from "../sandbox/sandbox-pool.ts";
import type { SpanExport } from "../span-export.ts";
import type { StoredHistory } from "../stored-steps.ts";
import type { TokenIssuer } from "../wait-token-ids.ts";
import type { BatchedEnds } from "./batched-ends.ts";
import type { BatchedSteps } from "./batched-steps.ts";
import type { Scrub } from "./secret-scrubber.ts";
import type { StepQuota } from "./step-quota.ts";

/** One attempt a worker is running: what it has claimed, and what happened to it so far. */
export interface RunningAttempt {
  execution: ClaimedExecution;
  attemptSpanId: string;
  startedAt: Date;
  timeout: AttemptTimeout;
  deadline: number;
  sandbox: SandboxRun | undefined;
  /** When the child was handed the run (the worker's clock, ms): the steps' starts count from it. */
  handedAt: number | undefined;
  cancelRequested: boolean;
  /** A step was taken since the cancel was heard: it is where the cancel is honoured, and later ones are not stored. */
  cancelStepTaken: boolean;
  timedOut: boolean;
  /** The cancel was not honoured within `cancelGraceMs`, so the worker killed the sandbox process. */
  cancelKilled: boolean;
  /** Bytes stored for the execution so far (all attempts): the per-execution storage limit counts them. */
  storedBytes: number;
  /** Spans of this attempt's steps, written when it ends. */
  stepSpans: SpanRow[];
  /**
   * The statements storing this attempt's steps that are under way. Its end waits for them: on
   * PostgreSQL a step statement that began while the attempt held its lease could otherwise commit
   * after the end let go of it, and a claim in between would run the step again.
   */
  storing: Set<Promise<unknown>>;
  /** Set once a final transition is under way, so no second one starts. */
  done: boolean;
  /** Takes the project's secret values out of the logs and error messages the attempt stores. */
  scrub: Scrub;
}

/** `now` is the claim's instant: the attempt's time starts with its lease, not once its steps are loaded. */
export function startAttempt(
  execution: ClaimedExecution,
  history: StoredHistory | undefined,
  now: Date,
  timeoutPolicy: TimeoutPolicy,
): RunningAttempt {
  const timeout = attemptTimeout(execution.timeoutMs, timeoutPolicy);
  return {
    execution,
    attemptSpanId: execution.attemptSpanId,
    startedAt: now,
    timeout,
    deadline: now.getTime() + timeout.ms,
    sandbox: undefined,
    handedAt: undefined,
    cancelRequested: false,
    cancelStepTaken: false,
    timedOut: false,
    cancelKilled: false,
    storedBytes: (history?.bytes ?? 0) + execution.logBytes,
    stepSpans: [],
    storing: new Set(),
    done: false,
    scrub: (text) => text,
  };
}

/** What the modules that end and watch attempts need from their worker. */
export interface AttemptContext {
  db: Database;
  clock: Clock;
  logger: Logger;
  workerId: string;
  spanExport?: SpanExport | undefined;
  /** Hands out wait token ids and URLs. */
  tokens: TokenIssuer;
  /**
   * Frees the attempt's slot and looks for more work. `ended`: the execution reached a final state;
   * any other release may leave it claimable at once (a retry without delay, a hand-back, a cancel
   * that the next claim carries out), and no notification says so.
   */
  release(executionId: string, ended: boolean): void;
  /** An execution let go of becomes claimable at `at` (a sleep, a delayed retry, a wait's expiry), unannounced. */
  fallsDue(accountId: string, at: Date): void;
  /** Ends attempts, grouped with the ends of the same transition that come together. */
  ends: BatchedEnds;
  /** Records the steps attempts report, grouped with the steps that come together. */
  steps: BatchedSteps;
  /** Attempt ends under way; stopping waits for them. */
  finishing: Set<Promise<void>>;
  /** Whether the workspace of an attempt has step time left under its plan; without it, none is asked. */
  stepQuota: StepQuota | undefined;
  /** Checks a child's input against its workflow's schema (`ctx.invoke`, `ctx.start`). */
  validateInput?: InputValidator | undefined;
  /** The plan's execution quota, which child workflows pass; without it, none is asked. */
  admitStarts?: AdmitStarts | undefined;
  /** What `ctx.sendEvent` needs to send; without it, a send fails the step. */
  sendEvent?: SendWorkflowEvent | undefined;
}

/**
 * Whether a project's plan lets it start `count` more executions (they are then counted): the
 * refusal's message, or undefined. Child workflows pass it as every other start does.
 */
export type AdmitStarts = (projectId: string, count: number) => Promise<string | undefined>;

/**
 * An event a workflow sends (`ctx.sendEvent`); `senderExecutionId` is the execution that sends it,
 * and the executions the event starts are one deeper than `senderDepth` (`executions.depth`).
 */
export interface WorkflowEvent {
  projectId: string;
  name: string;
  data: unknown;
  id: string;
  /**
   * The id is the default one (the execution's and the step's), which names the step's one send
   * whatever its data: a step run again after a crash may compute other data, and is answered.
   */
  defaultId: boolean;
  senderExecutionId: string;
  senderDepth: number;
}

/**
 * Sends a workflow's event as the events feature sends every event, handed to the engine by the
 * composition root: the event's id and the executions it started, or the refusal's message.
 */
export type SendWorkflowEvent = (
  event: WorkflowEvent,
  spanExport: SpanExport | undefined,
) => Promise<
  | { ok: true; eventId: string; executions: { workflow: string; executionId: string }[] }
  | { ok: false; message: string }
>;

/** An input as a JSON schema reads it (defaults applied), or the issues naming what is wrong. */
export type InputValidator = (
  schema: JsonSchema,
  value: unknown,
) => { ok: true; value: unknown } | { ok: false; issues: { path: string; message: string }[] };

/** Notes a cancel requested for the attempt, and tells its child, which then stops going ahead of its steps. */
export function hearCancel(run: RunningAttempt): void {
  if (run.cancelRequested) return;
  run.cancelRequested = true;
  run.sandbox?.cancelRequested();
}

/** Lets go of an execution another worker took over (or will): nothing more is written for it. */
export function abandon(context: AttemptContext, run: RunningAttempt): void {
  run.done = true;
  run.sandbox?.abandon();
  context.release(run.execution.id, false);
}
