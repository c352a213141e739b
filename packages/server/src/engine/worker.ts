import { randomBytes } from "node:crypto";
import { join } from "node:path";
import type { DatabaseHandle } from "../db/database.ts";
import { retryWhileUnavailable } from "../db/database-unavailable.ts";
import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import { systemTimers, type Timers } from "../shared/timers.ts";
import { defaultAttemptTimeoutMs } from "./attempt-timeout.ts";
import { requeueOnStop } from "./attempts/attempt-ending.ts";
import { createAttemptLauncher } from "./attempts/attempt-launch.ts";
import { createBatchedEnds } from "./attempts/batched-ends.ts";
import { createBatchedSteps } from "./attempts/batched-steps.ts";
import type { ReadIntegrations } from "./attempts/project-integrations.ts";
import {
  type AdmitStarts,
  type AttemptContext,
  hearCancel,
  type InputValidator,
  type RunningAttempt,
  type SendWorkflowEvent,
} from "./attempts/running-attempt.ts";
import type { StepQuota } from "./attempts/step-quota.ts";
import { cancellationsChannel, executionsChannel } from "./channels.ts";
import { type ClaimLoop, createClaimLoop } from "./claim-loop.ts";
import { announcedAccounts } from "./claimable-accounts.ts";
import { defaultCrashAttempts } from "./crash-attempts.ts";
import { createDueWakeups } from "./due-wakeups.ts";
import type { ResolveHost } from "./egress/resolve-host.ts";
import {
  createEmbeddedMaintenance,
  defaultVacuumEveryClaims,
  type EmbeddedMaintenance,
} from "./embedded-maintenance.ts";
import type { EndStatementParts } from "./execution-state/end-statement-parts.ts";
import { defaultSandboxIdleMs } from "./limits.ts";
import type { LocalStarts } from "./local-starts.ts";
import { activeDeploymentsAmong, readDeploymentBundle } from "./sandbox/deployment-bundles.ts";
import { type SandboxHost, startSandboxHost } from "./sandbox/sandbox-host.ts";
import type { SandboxIsolation } from "./sandbox/sandbox-isolation.ts";
import { createSandboxPool, type SandboxPool } from "./sandbox/sandbox-pool.ts";
import type { SpanExport } from "./span-export.ts";
import type { TokenIssuer } from "./wait-token-ids.ts";
import { forgetWorker } from "./worker-heartbeats.ts";
import { heartbeat, takeOverOrphans, type WorkerLeaseDependencies } from "./worker-leases.ts";
import { defaultWorkspaceShare, workspaceSlots } from "./workspace-share.ts";

/**
 * Glossary. An *execution* is one run of a workflow with one input. An *attempt* is one try at it,
 * from the start of `run` (replaying stored steps) until it returns or throws; a failed attempt is
 * retried with backoff until the workflow's maxAttempts. A *step* is a named unit of work whose
 * result is stored once it completes. A *lease* is a worker's time-limited claim on an execution,
 * renewed by heartbeat; an execution whose lease expires is claimable again. Sleeping, and waiting
 * for a wait token, release the lease; waking up continues the same attempt.
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
  /** Share of `concurrency` one account may hold across the workspaces it pays for (0 to 1); half by default. */
  workspaceShare?: number | undefined;
  /** Takeovers from a dead worker after which an execution fails instead of running again; 3 by default. */
  crashAttempts?: number | undefined;
  /** How long a sandbox process running nothing is kept warm; 5 minutes by default. */
  sandboxIdleMs?: number | undefined;
  /** On the embedded database, claims between two vacuums of the tables the engine churns. */
  vacuumEveryClaims?: number | undefined;
  /** The key and base URL wait token ids and URLs are made with (`waitTokenIssuer`). */
  tokens: TokenIssuer;
}

/** What a worker asks of the features it runs executions for, wired by the composition root (`workerFeatures`). */
export interface WorkerFeatures {
  /** What the features record in the statement that ends attempts (meters, counts, failures to notify of). */
  endStatementParts: EndStatementParts;
  /** Whether an attempt's workspace has step time left under its plan; without it, none is asked. */
  stepQuota?: StepQuota | undefined;
  /** The integrations an attempt's workflow sees; without it, none. */
  integrations?: ReadIntegrations | undefined;
  /** Checks a child's input against its workflow's schema (`ctx.invoke`, `ctx.start`); without it, a child with a schema is refused. */
  validateInput?: InputValidator | undefined;
  /** The plan's execution quota, which child workflows pass; without it, none is asked. */
  admitStarts?: AdmitStarts | undefined;
  /** Sends a workflow's event (`ctx.sendEvent`); without it, a send fails its step. */
  sendEvent?: SendWorkflowEvent | undefined;
}

export interface WorkerDependencies {
  database: DatabaseHandle;
  features: WorkerFeatures;
  clock: Clock;
  logger: Logger;
  /** Where finished executions' spans are copied (the optional OTLP exporter). */
  spanExport?: SpanExport | undefined;
  /** How the sandboxes' egress proxy resolves host names (the system resolver by default). */
  resolveHost?: ResolveHost | undefined;
  /**
   * Paces the sandbox pool (memory watchdog, bundle load limit) and the wake-ups of what falls due;
   * system timers by default. A wake-up fired early only arms itself again: it reads the clock.
   */
  timers?: Timers | undefined;
}

export interface Worker {
  id: string;
  /** Looks for claimable and expired executions now, wherever they are (as a poll does); resolves once those passes are over. */
  poke(): Promise<void>;
  /** The deployments that have a warm sandbox process in this worker. */
  sandboxes(): string[];
  /** Stops claiming, hands running executions back to the queue and stops the sandboxes. */
  stop(): Promise<void>;
  /** On the embedded database, where this worker is the only one: new executions it takes at once. */
  localStarts: LocalStarts | undefined;
}

/** Sleeps, delayed retries and waits' expiries a worker wakes for; the poll finds those past the soonest this many. */
const maxDueWakeups = 10_000;

/** The sandboxes' host (isolation, egress proxy) and the pool of sandbox processes a worker runs attempts in. */
async function startSandboxes(
  deps: WorkerDependencies,
  options: WorkerOptions,
): Promise<{ sandboxHost: SandboxHost; pool: SandboxPool }> {
  const { clock, logger } = deps;
  const db = deps.database.db;
  const sandboxHost = await startSandboxHost(options.sandbox, { logger, resolveHost: deps.resolveHost });
  const pool = createSandboxPool({
    bundlesDir: join(options.dataDir, "bundles"),
    memoryMb: options.memoryMb,
    maxChildren: 16,
    idleMs: options.sandboxIdleMs ?? defaultSandboxIdleMs,
    activeAmong: (deploymentIds) => activeDeploymentsAmong(db, deploymentIds),
    now: () => clock.now().getTime(),
    loadBundle: (deploymentId) => readDeploymentBundle(db, deploymentId),
    logger,
    host: sandboxHost,
    timers: deps.timers,
  });
  return { sandboxHost, pool };
}

/**
 * Listens for new executions (a claim pass for their accounts) and for cancellations of the
 * executions this worker runs; the function returned stops both.
 */
async function listenForWork(
  database: DatabaseHandle,
  claims: ClaimLoop,
  running: ReadonlyMap<string, RunningAttempt>,
): Promise<() => Promise<void>> {
  const unlistenExecutions = await retryWhileUnavailable(() =>
    database.listen(executionsChannel, (payload) => {
      const accounts = announcedAccounts(payload);
      // Heard inside the commit that announced them: claimed at once, the claim would take the
      // embedded database before the committer went on (a webhook's answer waited for it).
      setImmediate(() => claims.announced(accounts));
    }),
  );
  const unlistenCancellations = await retryWhileUnavailable(() =>
    database.listen(cancellationsChannel, (executionId) => {
      const run = running.get(executionId);
      if (run !== undefined) hearCancel(run);
    }),
  );
  return async () => {
    await unlistenExecutions().catch(() => undefined);
    await unlistenCancellations().catch(() => undefined);
  };
}

/**
 * Every poll interval: a claim pass that forgets what it knew, the end of the runs past their time
 * to live, and a renewal of the leases held (one at a time).
 */
function startPolling(claims: ClaimLoop, leases: WorkerLeaseDependencies, pollIntervalMs: number): { stop(): void } {
  let beating = false;
  const tick = setInterval(() => {
    claims.forget();
    void claims.poke();
    void claims.expireOverdue();
    if (beating) return;
    beating = true;
    heartbeat(leases)
      .catch((error: unknown) => leases.logger.error({ err: error }, "renewing leases failed"))
      .finally(() => {
        beating = false;
      });
  }, pollIntervalMs);
  tick.unref();
  return { stop: () => clearInterval(tick) };
}

/** On the embedded database, the vacuums of the tables the engine churns, every so many claims. */
function embeddedMaintenanceOf(
  database: DatabaseHandle,
  logger: Logger,
  options: WorkerOptions,
): EmbeddedMaintenance | undefined {
  if (database.kind !== "embedded") return undefined;
  return createEmbeddedMaintenance(
    { db: database.db, logger },
    { everyClaims: options.vacuumEveryClaims ?? defaultVacuumEveryClaims },
  );
}

/** On stop: the attempts still running are abandoned and handed back to the queue, and their ends awaited. */
async function handBackRunning(running: ReadonlyMap<string, RunningAttempt>, context: AttemptContext): Promise<void> {
  const left = [...running.values()].filter((run) => !run.done);
  for (const run of left) {
    run.done = true;
    run.sandbox?.abandon();
  }
  await Promise.all(left.map((run) => requeueOnStop(context, run).catch(() => undefined)));
  await Promise.all([...context.finishing]);
}

/**
 * The worker: the claim loop, the leases and the hand-off to the sandboxes. What happens to an
 * attempt once it runs is in `attempts/` (its steps, its end, its deadline and cancel grace); every
 * change of an execution's state is a transition of `execution-state/`.
 */
export async function startWorker(deps: WorkerDependencies, options: WorkerOptions): Promise<Worker> {
  const { database, clock, logger } = deps;
  const db = database.db;
  const workerId = options.workerId ?? `wrk_${randomBytes(8).toString("hex")}`;
  const running = new Map<string, RunningAttempt>();
  const { sandboxHost, pool } = await startSandboxes(deps, options);
  const timeoutPolicy = {
    defaultTimeoutMs: options.defaultTimeoutMs ?? defaultAttemptTimeoutMs,
    maxTimeoutMs: options.maxTimeoutMs,
  };
  const maintenance = embeddedMaintenanceOf(database, logger, options);
  /** On the embedded database this is the only worker: every change to the queue is this process's. */
  const soleWorker = database.kind === "embedded";
  const slotsPerAccount = workspaceSlots(options.concurrency, options.workspaceShare ?? defaultWorkspaceShare);
  let stopped = false;
  const wakeups = createDueWakeups(
    { clock, timers: deps.timers ?? systemTimers },
    {
      capacity: maxDueWakeups,
      onDue: (accountIds) => claims.announced(accountIds),
    },
  );
  const context: AttemptContext = {
    db,
    clock,
    logger,
    workerId,
    spanExport: deps.spanExport,
    tokens: options.tokens,
    release: (executionId, ended) => {
      const accountId = running.get(executionId)?.execution.accountId;
      running.delete(executionId);
      claims.released(accountId, ended);
    },
    fallsDue: (accountId, at) => wakeups.add(accountId, at),
    ends: createBatchedEnds(db, workerId, deps.features.endStatementParts),
    steps: createBatchedSteps(db, workerId),
    finishing: new Set(),
    stepQuota: deps.features.stepQuota,
    validateInput: deps.features.validateInput,
    admitStarts: deps.features.admitStarts,
    sendEvent: deps.features.sendEvent,
  };
  const launcher = createAttemptLauncher({
    context,
    pool,
    running,
    timeoutPolicy,
    crashAttempts: options.crashAttempts ?? defaultCrashAttempts,
    tokens: options.tokens,
    integrations: deps.features.integrations,
  });
  const claims = createClaimLoop({
    db,
    clock,
    logger,
    workerId,
    concurrency: options.concurrency,
    leaseMs: options.leaseMs,
    slotsPerAccount,
    soleWorker,
    running,
    launcher,
    timeoutPolicy,
    maintenance,
  });

  const leases = { db, clock, logger, workerId, leaseMs: options.leaseMs, running, context };
  await retryWhileUnavailable(() => takeOverOrphans(leases, { everyOtherWorker: database.kind === "embedded" }));
  const unlisten = await listenForWork(database, claims, running);
  const polling = startPolling(claims, leases, options.pollIntervalMs);
  void claims.poke();

  return {
    id: workerId,
    poke: async () => {
      claims.forget();
      await Promise.all([claims.poke(), claims.expireOverdue()]);
    },
    sandboxes: () => pool.deployments(),
    localStarts: soleWorker ? { reserve: claims.reserveLocalStart } : undefined,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      const claimsStopped = claims.stop();
      polling.stop();
      wakeups.stop();
      await unlisten();
      await claimsStopped;
      await handBackRunning(running, context);
      await forgetWorker(db, workerId).catch(() => undefined);
      await maintenance?.settled();
      running.clear();
      await pool.close();
      await sandboxHost.close();
    },
  };
}
