import { sqlStateOf } from "../../db/sql-state.ts";
import { ok } from "../../shared/service-result.ts";
import { singleFlight } from "../../shared/single-flight.ts";
import type { TimeoutPolicy } from "../attempt-timeout.ts";
import { workerCrashError } from "../crash-attempts.ts";
import type { ClaimedExecution } from "../execution-state/index.ts";
import type { StoredTokenForReplay } from "../sandbox/protocol.ts";
import type { SandboxPool } from "../sandbox/sandbox-pool.ts";
import { loadStoredSteps, type StoredHistory } from "../stored-steps.ts";
import { loadStoredTokens } from "../stored-tokens.ts";
import type { TokenIssuer } from "../wait-token-ids.ts";
import { endAttempt } from "./attempt-ending.ts";
import type { ReadIntegrations } from "./project-integrations.ts";
import { type AttemptContext, type RunningAttempt, startAttempt } from "./running-attempt.ts";
import { sandboxHandlers } from "./sandbox-handlers.ts";
import { secretScrubber } from "./secret-scrubber.ts";
import { stopOverStepQuota } from "./step-quota-stop.ts";

export /** What the executions of one claim that ran before had stored, by execution id. */
interface ClaimedHistories {
  steps: Map<string, StoredHistory>;
  tokens: Map<string, Record<string, StoredTokenForReplay>>;
}

// Stored on the execution, so they say what failed without the database's text, which quotes parameters.
const historyReadError = { name: "HistoryReadError", message: "the execution's stored steps could not be read" };
const startError = { name: "StartError", message: "the attempt could not start" };
const integrationReadError = {
  name: "IntegrationReadError",
  message: "the project's integrations could not be read",
};

export interface AttemptLaunchDependencies {
  context: AttemptContext;
  pool: SandboxPool;
  /** The worker's running attempts, which a launched one joins. */
  running: Map<string, RunningAttempt>;
  timeoutPolicy: TimeoutPolicy;
  /** Takeovers from a dead worker after which an execution fails instead of running again. */
  crashAttempts: number;
  tokens: TokenIssuer;
  /** Reads the integrations an attempt's workflow sees; without it, workflows see none. */
  integrations: ReadIntegrations | undefined;
}

export interface AttemptLauncher {
  /** The stored steps and wait tokens of the claimed executions that ran before, or `undefined` if the read failed. */
  readHistories(claimed: readonly ClaimedExecution[], now: Date): Promise<ClaimedHistories | undefined>;
  /** Starts a leased execution; one that cannot start is ended, since a worker never takes a lapsed lease back from itself. */
  startLeased(execution: ClaimedExecution, histories: ClaimedHistories | undefined, now: Date): void;
}

/**
 * Ends an attempt that may not run, before any of its code does: a cancel was requested, its
 * worker process kept dying, its stored history could not be read, or its workspace has no step
 * time left. True when it ended the attempt.
 */
async function refusedBeforeStart(
  deps: AttemptLaunchDependencies,
  run: RunningAttempt,
  histories: ClaimedHistories | undefined,
): Promise<boolean> {
  const { context } = deps;
  const { execution } = run;
  if (execution.cancelRequested) {
    endAttempt(context, run, { kind: "cancel" });
    return true;
  }
  // A time to live bounds the wait for a first start: a run that started once (a retry) never expires.
  if (
    execution.transition === "claim" &&
    !execution.hasHistory &&
    execution.expiresAt !== null &&
    execution.expiresAt <= run.startedAt
  ) {
    endAttempt(context, run, { kind: "expire" });
    return true;
  }
  const crashed = workerCrashError(execution, deps.crashAttempts);
  if (crashed !== undefined) {
    context.logger.warn(
      { executionId: execution.id, projectId: execution.projectId, leaseExpiries: execution.leaseExpiries },
      "an execution whose worker process kept dying is failed instead of run again",
    );
    endAttempt(context, run, { kind: "giveUp", error: crashed });
    return true;
  }
  if (histories === undefined && execution.hasHistory) {
    endAttempt(context, run, { kind: "fail", error: historyReadError, logs: [] });
    return true;
  }
  return stopOverStepQuota(context, run);
}

/**
 * What happens between a claim and a sandbox: the reads an attempt needs (its stored history, its
 * project's integrations), the refusals before any code runs (cancelled, crash-looping, over the
 * step quota) and the hand-off to the pool.
 */
export function createAttemptLauncher(deps: AttemptLaunchDependencies): AttemptLauncher {
  const { context, pool, running, timeoutPolicy, tokens } = deps;
  const { db, logger } = context;

  /**
   * What a read between a claim and the sandbox returns, or `undefined` if it threw: the attempts
   * that needed it then fail, retried by their policy, since left leased they would wait for a lease
   * this worker never takes back from itself. Logged by SQLSTATE: a database error's text quotes
   * the statement's parameters.
   */
  async function readBeforeStart<T>(read: () => Promise<T>, failed: string, fields: object): Promise<T | undefined> {
    try {
      return await read();
    } catch (error) {
      logger.error({ ...fields, sqlState: sqlStateOf(error) }, failed);
      return undefined;
    }
  }

  /** The stored steps and wait tokens of the claimed executions that ran before. */
  function readHistories(claimed: readonly ClaimedExecution[], now: Date) {
    const resumed = claimed.filter((execution) => execution.hasHistory).map((execution) => execution.id);
    return readBeforeStart(
      async () => ({
        steps: await loadStoredSteps(db, resumed),
        tokens: await loadStoredTokens(db, tokens, resumed, now),
      }),
      "could not read stored steps",
      { executions: resumed.length },
    );
  }

  // The attempts of one project that start together (a claim takes several) share one read: each
  // read still follows every change committed before it began.
  const readIntegrations = deps.integrations === undefined ? undefined : singleFlight(deps.integrations);
  function readIntegrationsOf(execution: ClaimedExecution) {
    const read = readIntegrations;
    if (read === undefined) return Promise.resolve(ok({ values: {}, secrets: [] }));
    return readBeforeStart(() => read(execution.projectId), "could not read integrations", {
      executionId: execution.id,
    });
  }

  /** Hands a claimed execution to a sandbox; `now` is the claim's instant, when its time limit starts. */
  async function begin(execution: ClaimedExecution, histories: ClaimedHistories | undefined, now: Date) {
    const history = histories?.steps.get(execution.id);
    const run = startAttempt(execution, history, now, timeoutPolicy);
    running.set(execution.id, run);
    if (await refusedBeforeStart(deps, run, histories)) return;
    const tokens = histories?.tokens.get(execution.id);
    const integrations = await readIntegrationsOf(execution);
    if (integrations === undefined) {
      endAttempt(context, run, { kind: "fail", error: integrationReadError, logs: [] });
      return;
    }
    if (!integrations.ok) {
      const error = { name: "IntegrationSecretError", message: integrations.failure.message };
      endAttempt(context, run, { kind: "fail", error, logs: [] });
      return;
    }
    run.scrub = secretScrubber(integrations.value.secrets);
    try {
      const sandbox = await pool.run(
        execution.deploymentId,
        {
          type: "run",
          executionId: execution.id,
          workflow: execution.workflow,
          input: execution.input,
          attempt: execution.attempt,
          steps: history?.steps ?? {},
          tokens: tokens ?? {},
          integrations: integrations.value.values,
        },
        sandboxHandlers(context, run),
        () => !run.done,
      );
      // It timed out, was cancelled or taken over while its process was still starting (see
      // `enforceDeadline`): the process never heard of it.
      if (sandbox === undefined) return;
      run.sandbox = sandbox;
      run.handedAt = context.clock.now().getTime();
      // It ended between the hand-over and this line (a renewal's answer comes as a promise).
      if (run.done) sandbox.abandon();
      else if (run.cancelRequested) sandbox.cancelRequested();
    } catch (error) {
      const failure =
        error instanceof Error
          ? { name: error.name, message: error.message, stack: error.stack }
          : { name: "Error", message: String(error) };
      endAttempt(context, run, { kind: "fail", error: failure, logs: [] });
    }
  }

  /** Starts a leased execution; one that cannot start is ended, since a worker never takes a lapsed lease back from itself. */
  function startLeased(execution: ClaimedExecution, histories: ClaimedHistories | undefined, now: Date): void {
    begin(execution, histories, now).catch((error: unknown) => {
      logger.error({ err: error, executionId: execution.id }, "could not start an execution");
      const attempt = running.get(execution.id);
      if (attempt !== undefined) endAttempt(context, attempt, { kind: "fail", error: startError, logs: [] });
    });
  }

  return { readHistories, startLeased };
}
