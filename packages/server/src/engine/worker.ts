import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { DatabaseHandle } from "../db/database.ts";
import type { ExecutionError, LogEntry } from "../db/schema/index.ts";
import { sqlStateOf } from "../db/sql-state.ts";
import { readDeploymentBundle } from "../deployments/read-deployments.ts";
import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import type { Timers } from "../shared/timers.ts";
import type { SpanExport } from "../traces/otlp-export.ts";
import { type AttemptTimeout, attemptTimeout, defaultAttemptTimeoutMs, timeoutError } from "./attempt-timeout.ts";
import { cancellationsChannel, executionsChannel } from "./channels.ts";
import { type ClaimedExecution, claimExecutions } from "./claim-executions.ts";
import type { ResolveHost } from "./egress/egress-proxy.ts";
import {
  endAttempt,
  errorJson,
  leaseHeld,
  loadStoredSteps,
  recordStep,
  renewLeases,
  type StepRecord,
  type StepSpan,
  type StoredHistory,
  stepSpanOf,
  suspendForSleep,
} from "./execution-transitions.ts";
import { cancelGraceMs } from "./limits.ts";
import { retryDelayMs } from "./retry-policy.ts";
import type { ChildMessage, SerializedError } from "./sandbox/protocol.ts";
import { startSandboxHost } from "./sandbox/sandbox-host.ts";
import type { SandboxIsolation } from "./sandbox/sandbox-isolation.ts";
import { createSandboxPool, type SandboxRun } from "./sandbox/sandbox-pool.ts";
import {
  checkLogs,
  checkOutput,
  checkStepName,
  checkStepResult,
  storableError,
  storageBudgetError,
} from "./stored-values.ts";
import { newSpanId } from "./trace-ids.ts";
import { defaultWorkspaceShare, workspaceSlots } from "./workspace-share.ts";

/**
 * Glossary. An *execution* is one run of a workflow with one input. An *attempt* is one try at it,
 * from the start of `run` (replaying stored steps) until it returns or throws; a failed attempt is
 * retried with backoff until the workflow's maxAttempts. A *step* is a named unit of work whose
 * result is stored once it completes. A *lease* is a worker's time-limited claim on an execution,
 * renewed by heartbeat; an execution whose lease expires is claimable again. Sleeping releases the
 * lease; waking up continues the same attempt.
 */

export interface WorkerOptions {
  /** Most executions this worker runs at once. */
  concurrency: number;
  leaseMs: number;
  /** How often the worker looks for work when no notification arrives, and checks timeouts. */
  pollIntervalMs: number;
  /** Memory cap of each sandbox child process, in MB. */
  memoryMb: number;
  /** Where deployment bundles are written for the sandbox children. */
  dataDir: string;
  /** The isolation decided at start-up (resolveSandboxIsolation): bubblewrap or plain processes. */
  sandbox: SandboxIsolation;
  workerId?: string;
  /** Time limit of an attempt of a workflow without its own `timeout`; 15 minutes by default. */
  defaultTimeoutMs?: number | undefined;
  /** Caps every workflow's timeout; none by default. */
  maxTimeoutMs?: number | undefined;
  /** Share of `concurrency` one workspace may hold (0 to 1); half by default. */
  workspaceShare?: number | undefined;
}

export interface WorkerDependencies {
  database: DatabaseHandle;
  clock: Clock;
  logger: Logger;
  /** Where finished executions' spans are copied (the optional OTLP exporter). */
  spanExport?: SpanExport | undefined;
  /** How the sandboxes' egress proxy resolves host names (the system resolver by default). */
  resolveHost?: ResolveHost | undefined;
  /** Paces the sandbox memory watchdog; system timers by default. */
  timers?: Timers | undefined;
}

export interface Worker {
  id: string;
  /** Looks for claimable executions now (as a notification would); resolves once that pass is over. */
  poke(): Promise<void>;
  /** Stops claiming, hands running executions back to the queue and stops the sandboxes. */
  stop(): Promise<void>;
}

interface Running {
  execution: ClaimedExecution;
  attemptSpanId: string;
  startedAt: Date;
  timeout: AttemptTimeout;
  deadline: number;
  sandbox: SandboxRun | undefined;
  cancelRequested: boolean;
  timedOut: boolean;
  /** The cancel was not honoured within `cancelGraceMs`, so the worker killed the sandbox process. */
  cancelKilled: boolean;
  /** Bytes stored for the execution so far (all attempts): the per-execution storage limit counts them. */
  storedBytes: number;
  /** Spans of this attempt's steps, written when it ends. */
  stepSpans: StepSpan[];
  /** Set once a final transition is under way, so no second one starts. */
  done: boolean;
}

const cancelledError: ExecutionError = { name: "CancelledError", message: "the execution was cancelled" };

export async function startWorker(deps: WorkerDependencies, options: WorkerOptions): Promise<Worker> {
  const { database, clock, logger } = deps;
  const db = database.db;
  const workerId = options.workerId ?? `wrk_${randomBytes(8).toString("hex")}`;
  const running = new Map<string, Running>();
  const sandboxHost = await startSandboxHost(options.sandbox, { logger, resolveHost: deps.resolveHost });
  const pool = createSandboxPool({
    bundlesDir: join(options.dataDir, "bundles"),
    memoryMb: options.memoryMb,
    maxChildren: 16,
    loadBundle: (deploymentId) => readDeploymentBundle(db, deploymentId),
    logger,
    host: sandboxHost,
    timers: deps.timers,
  });
  const timeoutPolicy = {
    defaultTimeoutMs: options.defaultTimeoutMs ?? defaultAttemptTimeoutMs,
    maxTimeoutMs: options.maxTimeoutMs,
  };
  const slotsPerWorkspace = workspaceSlots(options.concurrency, options.workspaceShare ?? defaultWorkspaceShare);
  let stopped = false;
  const finishing = new Set<Promise<void>>();
  let passes: Promise<void> = Promise.resolve();
  let nextPass: Promise<void> | undefined;

  const lease = (id: string) => ({ executionId: id, workerId });
  const release = (id: string) => {
    running.delete(id);
    void poke();
  };

  function attemptEnd(run: Running, status: { code: "ok" | "error"; message?: string }, logs: LogEntry[]) {
    return {
      now: clock.now(),
      attemptSpanId: run.attemptSpanId,
      attemptStatus: status,
      logs,
      stepSpans: run.stepSpans.splice(0),
    };
  }

  async function succeed(run: Running, result: { value?: unknown }, logs: LogEntry[]): Promise<void> {
    const ended = await endAttempt(
      db,
      { executionId: run.execution.id, condition: leaseHeld(workerId), relaxedCommit: true },
      {
        ...attemptEnd(run, { code: "ok" }, logs),
        set: sql`status = 'succeeded', output = ${JSON.stringify(result.value ?? null)}::jsonb, error = null,
          finished_at = ${clock.now().toISOString()}::timestamptz`,
        final: { code: "ok" },
      },
    );
    if (ended) deps.spanExport?.exportExecution(run.execution.id);
  }

  async function fail(run: Running, error: ExecutionError, logs: LogEntry[]): Promise<void> {
    const { execution } = run;
    const target = { executionId: execution.id, condition: leaseHeld(workerId), relaxedCommit: true };
    const now = clock.now();
    if (execution.attempt < execution.maxAttempts) {
      const delay = retryDelayMs(
        {
          maxAttempts: execution.maxAttempts,
          minDelayMs: execution.retryMinDelayMs,
          maxDelayMs: execution.retryMaxDelayMs,
        },
        execution.attempt,
      );
      await endAttempt(db, target, {
        ...attemptEnd(run, { code: "error", message: error.message }, logs),
        set: sql`status = 'queued', attempt = attempt + 1, error = ${errorJson(error)},
          run_at = ${new Date(now.getTime() + delay).toISOString()}::timestamptz`,
      });
      return;
    }
    const ended = await endAttempt(db, target, {
      ...attemptEnd(run, { code: "error", message: error.message }, logs),
      set: sql`status = 'failed', error = ${errorJson(error)}, finished_at = ${now.toISOString()}::timestamptz`,
      final: { code: "error", message: error.message },
    });
    if (ended) deps.spanExport?.exportExecution(execution.id);
  }

  async function cancel(run: Running, logs: LogEntry[]): Promise<void> {
    const ended = await endAttempt(
      db,
      { executionId: run.execution.id, condition: leaseHeld(workerId), relaxedCommit: true },
      {
        ...attemptEnd(run, { code: "error", message: cancelledError.message }, logs),
        set: sql`status = 'cancelled', error = ${errorJson(cancelledError)},
          finished_at = ${clock.now().toISOString()}::timestamptz`,
        final: { code: "error", message: cancelledError.message },
      },
    );
    if (ended) deps.spanExport?.exportExecution(run.execution.id);
  }

  /** Hands an execution back to the queue without using up an attempt (shutdown, a sibling's timeout). */
  async function requeue(run: Running, reason: string): Promise<void> {
    await endAttempt(
      db,
      { executionId: run.execution.id, condition: leaseHeld(workerId), relaxedCommit: true },
      {
        ...attemptEnd(run, { code: "error", message: reason }, []),
        set: sql`status = 'queued', run_at = ${clock.now().toISOString()}::timestamptz`,
      },
    );
  }

  /**
   * Ends an execution whose end the database refused (a value it cannot store that slipped through,
   * a constraint): left running, its lease would lapse and the next claim would fail the same way,
   * for ever.
   */
  async function failForStorage(run: Running, sqlState: string | undefined): Promise<void> {
    const error: ExecutionError = {
      name: "StorageError",
      message: `the end of the attempt could not be stored${sqlState === undefined ? "" : ` (SQLSTATE ${sqlState})`}`,
    };
    const ended = await endAttempt(
      db,
      { executionId: run.execution.id, condition: leaseHeld(workerId), relaxedCommit: true },
      {
        now: clock.now(),
        attemptSpanId: run.attemptSpanId,
        attemptStatus: { code: "error", message: error.message },
        logs: [],
        set: sql`status = 'failed', error = ${errorJson(error)}, finished_at = ${clock.now().toISOString()}::timestamptz`,
        final: { code: "error", message: error.message },
      },
    );
    if (ended) deps.spanExport?.exportExecution(run.execution.id);
  }

  /**
   * Runs a final transition once, then frees the slot. If the database refuses it, the execution
   * fails with a storage error; only if that too fails (the database is gone) does the lease lapse.
   * Database errors are logged by SQLSTATE: their text quotes the statement's parameters.
   */
  function finish(run: Running, transition: () => Promise<void>): void {
    if (run.done) return;
    run.done = true;
    const executionId = run.execution.id;
    const settled = transition()
      .catch((error: unknown) => {
        const sqlState = sqlStateOf(error);
        logger.error({ executionId, sqlState }, "could not record the end of an attempt; failing the execution");
        return failForStorage(run, sqlState);
      })
      .catch((error: unknown) =>
        logger.error({ executionId, sqlState: sqlStateOf(error) }, "could not record the failure of an execution"),
      )
      .finally(() => {
        finishing.delete(settled);
        release(run.execution.id);
      });
    finishing.add(settled);
  }

  /** The step as it will be recorded: a step the limits refuse is recorded as failed, with `refused` as its error. */
  function checkStep(
    run: Running,
    message: Extract<ChildMessage, { type: "step" }>,
  ): { name: string; outcome: StepRecord["outcome"]; bytes: number; refused?: ExecutionError } {
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
    const overBudget = storageBudgetError(run.storedBytes, bytes, `step "${message.name}"`);
    if (overBudget !== undefined) return refuse(overBudget);
    return { name: message.name, outcome: message.outcome, bytes };
  }

  async function onStep(
    run: Running,
    message: Extract<ChildMessage, { type: "step" }>,
  ): Promise<{ stop?: "cancelled" | "abandoned"; error?: SerializedError }> {
    if (run.done) return { stop: "abandoned" };
    const checked = checkStep(run, message);
    const finishedAt = clock.now();
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
    let outcome: { owned: boolean; cancelRequested: boolean };
    try {
      outcome = await recordStep(db, lease(run.execution.id), step);
    } catch (error) {
      const sqlState = sqlStateOf(error);
      logger.error({ executionId: run.execution.id, sqlState }, "could not record a step");
      const message = `the step could not be stored${sqlState === undefined ? "" : ` (SQLSTATE ${sqlState})`}`;
      return { error: { name: "StorageError", message } };
    }
    if (outcome.owned) run.stepSpans.push(stepSpanOf(run.execution.id, step));
    if (!outcome.owned) {
      run.done = true;
      run.sandbox?.abandon();
      release(run.execution.id);
      return { stop: "abandoned" };
    }
    if (outcome.cancelRequested || run.cancelRequested) {
      run.sandbox?.abandon();
      finish(run, () => cancel(run, []));
      return { stop: "cancelled" };
    }
    if (checked.outcome.ok) run.storedBytes += checked.bytes;
    return checked.refused === undefined ? {} : { error: checked.refused };
  }

  function handlersFor(run: Running) {
    return {
      step: (message: Extract<ChildMessage, { type: "step" }>) => onStep(run, message),
      sleep: (message: Extract<ChildMessage, { type: "sleep" }>) => {
        const now = clock.now();
        const name = checkStepName(message.name);
        const logs = checkLogs(message.logs);
        const refused = !name.ok
          ? name.error
          : !logs.ok
            ? logs.error
            : storageBudgetError(run.storedBytes, logs.bytes, "the attempt's logs");
        if (refused !== undefined) return finish(run, () => fail(run, refused, []));
        finish(run, async () => {
          await suspendForSleep(db, lease(run.execution.id), {
            name: message.name,
            attempt: run.execution.attempt,
            sequence: 0,
            wakeAt: new Date(now.getTime() + message.durationMs),
            end: attemptEnd(run, { code: "ok", message: `sleeping (${message.name})` }, message.logs),
          });
        });
      },
      finished: (message: Extract<ChildMessage, { type: "finished" }>) => {
        const { outcome } = message;
        const logs = checkLogs(message.logs);
        if (!logs.ok) return finish(run, () => fail(run, logs.error, []));
        if (!outcome.ok) {
          const overBudget = storageBudgetError(run.storedBytes, logs.bytes, "the attempt's logs");
          if (overBudget !== undefined) return finish(run, () => fail(run, overBudget, []));
          return finish(run, () => fail(run, storableError(outcome.error), message.logs));
        }
        const output = checkOutput(outcome.result);
        if (!output.ok) return finish(run, () => fail(run, output.error, []));
        const overBudget = storageBudgetError(run.storedBytes, output.bytes + logs.bytes, "the output and logs");
        if (overBudget !== undefined) return finish(run, () => fail(run, overBudget, []));
        finish(run, () => succeed(run, outcome.result, message.logs));
      },
      malformed: (error: SerializedError) => finish(run, () => fail(run, storableError(error), [])),
      exited: (info: { error: SerializedError; killedByParent: boolean }) => {
        if (run.timedOut) {
          finish(run, () => fail(run, timeoutError(run.timeout), []));
        } else if (run.cancelKilled) {
          finish(run, () => cancel(run, []));
        } else if (info.killedByParent) {
          finish(run, () => requeue(run, "the workflow process was stopped by the worker"));
        } else {
          finish(run, () => fail(run, storableError(info.error), []));
        }
      },
    };
  }

  /** `now` is the claim's instant: the attempt's time starts with its lease, not once its steps are loaded. */
  async function begin(execution: ClaimedExecution, history: StoredHistory | undefined, now: Date) {
    const timeout = attemptTimeout(execution.timeoutMs, timeoutPolicy);
    const run: Running = {
      execution,
      attemptSpanId: execution.attemptSpanId,
      startedAt: now,
      timeout,
      deadline: now.getTime() + timeout.ms,
      sandbox: undefined,
      cancelRequested: false,
      timedOut: false,
      cancelKilled: false,
      storedBytes: (history?.bytes ?? 0) + execution.logBytes,
      stepSpans: [],
      done: false,
    };
    running.set(execution.id, run);
    if (execution.cancelRequested) {
      finish(run, () => cancel(run, []));
      return;
    }
    try {
      run.sandbox = await pool.run(
        execution.deploymentId,
        {
          type: "run",
          executionId: execution.id,
          workflow: execution.workflow,
          input: execution.input,
          attempt: execution.attempt,
          steps: history?.steps ?? {},
        },
        handlersFor(run),
      );
      // It timed out or was cancelled while its process was still starting (see `heartbeat`).
      if (run.done) run.sandbox.abandon();
    } catch (error) {
      const failure =
        error instanceof Error
          ? { name: error.name, message: error.message, stack: error.stack }
          : { name: "Error", message: String(error) };
      finish(run, () => fail(run, failure, []));
    }
  }

  async function claimOnce(): Promise<void> {
    while (!stopped) {
      const free = options.concurrency - running.size;
      if (free <= 0) return;
      const now = clock.now();
      const claimed = await claimExecutions(db, {
        workerId,
        now,
        leaseMs: options.leaseMs,
        limit: free,
        workspaceSlots: slotsPerWorkspace,
      });
      if (claimed.length === 0) return;
      const stored = await loadStoredSteps(
        db,
        claimed.filter((execution) => execution.hasHistory).map((execution) => execution.id),
      );
      for (const execution of claimed) {
        begin(execution, stored.get(execution.id), now).catch((error: unknown) => {
          logger.error({ err: error, executionId: execution.id }, "could not start an execution");
          running.delete(execution.id);
        });
      }
    }
  }

  /** Chains claim passes: a call made while a pass runs gets the next one, which covers it. */
  function poke(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (nextPass !== undefined) return nextPass;
    const pass = passes.then(() => {
      nextPass = undefined;
      return claimOnce().catch((error: unknown) => logger.error({ err: error }, "claiming executions failed"));
    });
    nextPass = pass;
    passes = pass;
    return pass;
  }

  async function heartbeat(): Promise<void> {
    const now = clock.now();
    for (const run of running.values()) {
      if (!run.done && !run.timedOut && now.getTime() > run.deadline) {
        run.timedOut = true;
        // Without a sandbox yet, the process is still loading the bundle (whose top level may never return).
        if (run.sandbox === undefined) finish(run, () => fail(run, timeoutError(run.timeout), []));
        else run.sandbox.terminate();
      }
    }
    const ids = [...running.keys()];
    const held = await renewLeases(db, {
      workerId,
      executionIds: ids,
      expiresAt: new Date(now.getTime() + options.leaseMs),
    });
    const heldIds = new Map(held.map((entry) => [entry.id, entry.cancelRequestedAt]));
    for (const id of ids) {
      const run = running.get(id);
      if (run === undefined || run.done) continue;
      const cancelRequestedAt = heldIds.get(id);
      if (cancelRequestedAt === undefined) {
        // Another worker took the execution over: let go of it here.
        run.done = true;
        run.sandbox?.abandon();
        running.delete(id);
      } else if (cancelRequestedAt !== null) {
        run.cancelRequested = true;
        // A step that never returns (a loop) never reaches the boundary where a cancel is honoured.
        if (!run.cancelKilled && !run.timedOut && now.getTime() - cancelRequestedAt.getTime() >= cancelGraceMs) {
          run.cancelKilled = true;
          if (run.sandbox === undefined) finish(run, () => cancel(run, []));
          else run.sandbox.terminate();
        }
      }
    }
  }

  const unlistenExecutions = await database.listen(executionsChannel, () => void poke());
  const unlistenCancellations = await database.listen(cancellationsChannel, (executionId) => {
    const run = running.get(executionId);
    if (run !== undefined) run.cancelRequested = true;
  });
  let beating = false;
  const tick = setInterval(() => {
    void poke();
    if (beating) return;
    beating = true;
    heartbeat()
      .catch((error: unknown) => logger.error({ err: error }, "renewing leases failed"))
      .finally(() => {
        beating = false;
      });
  }, options.pollIntervalMs);
  tick.unref();
  void poke();

  return {
    id: workerId,
    poke,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearInterval(tick);
      await unlistenExecutions().catch(() => undefined);
      await unlistenCancellations().catch(() => undefined);
      await passes;
      const left = [...running.values()].filter((run) => !run.done);
      for (const run of left) {
        run.done = true;
        run.sandbox?.abandon();
      }
      await Promise.all(left.map((run) => requeue(run, "the worker stopped").catch(() => undefined)));
      await Promise.all([...finishing]);
      running.clear();
      await pool.close();
      await sandboxHost.close();
    },
  };
}
