import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { type PlanCatalogue, unlimitedPlan } from "../billing/plans.ts";
import { createStepQuota } from "../billing/step-quota.ts";
import type { DatabaseHandle } from "../db/database.ts";
import { retryWhileUnavailable } from "../db/database-unavailable.ts";
import { activeDeploymentsAmong, readDeploymentBundle } from "../deployments/read-deployments.ts";
import type { SecretKeyring } from "../integrations/secret-sealing.ts";
import type { Clock } from "../shared/clock.ts";
import { createExpiringMap } from "../shared/expiring-map.ts";
import type { Logger } from "../shared/logger.ts";
import { systemTimers, type Timers } from "../shared/timers.ts";
import type { SpanExport } from "../traces/otlp-export.ts";
import type { TokenIssuer } from "../wait-tokens/token-secret.ts";
import { defaultAttemptTimeoutMs } from "./attempt-timeout.ts";
import { requeueOnStop } from "./attempts/attempt-ending.ts";
import { createAttemptLauncher } from "./attempts/attempt-launch.ts";
import { afterRenewal, enforceDeadline } from "./attempts/attempt-watch.ts";
import { createBatchedEnds } from "./attempts/batched-ends.ts";
import { type AttemptContext, type RunningAttempt, startAttempt } from "./attempts/running-attempt.ts";
import { cancellationsChannel, executionsChannel } from "./channels.ts";
import { announcedAccounts, createClaimableAccounts } from "./claimable-accounts.ts";
import { defaultCrashAttempts } from "./crash-attempts.ts";
import { createDueWakeups } from "./due-wakeups.ts";
import type { ResolveHost } from "./egress/egress-proxy.ts";
import { createEmbeddedMaintenance, defaultVacuumEveryClaims } from "./embedded-maintenance.ts";
import { claim, endOrphanedLeases, limitedGroupsPerClaim, renewLeases } from "./execution-state/index.ts";
import { defaultSandboxIdleMs } from "./limits.ts";
import type { LocalStart, LocalStarts } from "./local-starts.ts";
import { startSandboxHost } from "./sandbox/sandbox-host.ts";
import type { SandboxIsolation } from "./sandbox/sandbox-isolation.ts";
import { createSandboxPool } from "./sandbox/sandbox-pool.ts";
import { beat, forgetLapsedWorkers, forgetWorker } from "./worker-heartbeats.ts";
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
  /** The keys that open the projects' integration secrets; without it, workflows see no integrations. */
  keyring?: SecretKeyring | undefined;
  /** The plans (WEFT_PLANS): the quotas of steps; only `unlimited` by default. */
  billing?: PlanCatalogue | undefined;
}

export interface WorkerDependencies {
  database: DatabaseHandle;
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
  /** Looks for claimable executions now, wherever they are (as a poll does); resolves once that pass is over. */
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

/** Projects whose account a worker remembers for local starts; a project it forgot is claimed once more. */
const maxKnownProjects = 10_000;

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
  const timeoutPolicy = {
    defaultTimeoutMs: options.defaultTimeoutMs ?? defaultAttemptTimeoutMs,
    maxTimeoutMs: options.maxTimeoutMs,
  };
  const maintenance =
    database.kind === "embedded"
      ? createEmbeddedMaintenance(
          { db, logger },
          { everyClaims: options.vacuumEveryClaims ?? defaultVacuumEveryClaims },
        )
      : undefined;
  /** On the embedded database this is the only worker: every change to the queue is this process's. */
  const soleWorker = database.kind === "embedded";
  const slotsPerAccount = workspaceSlots(options.concurrency, options.workspaceShare ?? defaultWorkspaceShare);
  const catalogue = options.billing ?? { plans: [unlimitedPlan], defaultPlan: unlimitedPlan.name };
  let stopped = false;
  /** Whether the last claim pass may have left claimable executions behind a limit that an ending execution lifts. */
  let heldBack = true;
  const claimable = createClaimableAccounts();
  /**
   * The accounts whose running executions, in all the workspaces they pay for, fill their share of
   * this worker's slots: a claim skips their rows, and a local start refuses them.
   */
  const accountsAtShare = (): ReadonlySet<string> => {
    const counts = new Map<string, number>();
    for (const run of running.values()) {
      counts.set(run.execution.accountId, (counts.get(run.execution.accountId) ?? 0) + 1);
    }
    return new Set([...counts].flatMap(([accountId, count]) => (count >= slotsPerAccount ? [accountId] : [])));
  };
  /** From a claim until its executions are in `running`: the leases it took are not all counted there yet. */
  let claimingNow = false;
  /** The slot held for an execution ingress is writing leased to this worker; a claim waits for it. */
  let localStart: { slot: LocalStart; settled: Promise<void> } | undefined;
  /** A claim pass found a slot held: the slot's end starts another. */
  let claimDeferred = false;
  /**
   * Learnt from the claims: the account that pays for a project's workspace, which a local start's
   * share is counted in. Entries never expire (a project stays in its workspace, and a workspace's
   * account never changes); the map is there for its bound.
   */
  const projectAccounts = createExpiringMap<string, string>(maxKnownProjects);
  let passes: Promise<void> = Promise.resolve();
  let nextPass: Promise<void> | undefined;
  const wakeups = createDueWakeups(
    { clock, timers: deps.timers ?? systemTimers },
    {
      capacity: maxDueWakeups,
      onDue: (accountIds) => {
        claimable.announced(accountIds);
        void poke();
      },
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
      // A requeued execution is claimable, and a claim running now may have counted the freed slot as
      // taken. Otherwise, on the embedded database, what a claim left behind at the account's share
      // is known already; on PostgreSQL other workers requeue and let go of rows unannounced, and a
      // freed slot is the cue to look for them.
      if (accountId !== undefined && (!ended || claimingNow || !soleWorker)) claimable.announced([accountId]);
      if (heldBack || !ended) void poke();
    },
    fallsDue: (accountId, at) => wakeups.add(accountId, at),
    ends: createBatchedEnds(db, workerId),
    finishing: new Set(),
    stepQuota: createStepQuota({ db, clock, catalogue }),
  };
  const { readHistories, startLeased } = createAttemptLauncher({
    context,
    pool,
    running,
    timeoutPolicy,
    crashAttempts: options.crashAttempts ?? defaultCrashAttempts,
    tokens: options.tokens,
    keyring: options.keyring,
  });

  /**
   * Claims until nothing claimable is left, or until a slot held for a local start is given up. A
   * claim is the costliest statement of a short execution (on the embedded database it shares one
   * thread with ingest), so a pass claims again only when the last claim may have stopped short, and
   * an ending execution starts a pass only when executions may be waiting for a slot; new executions
   * notify, and every poll claims anyway.
   */
  async function claimOnce(): Promise<void> {
    while (!stopped) {
      // Until this claim answers, a slot freed meanwhile may be one it counted as taken.
      heldBack = true;
      const free = options.concurrency - running.size;
      if (free <= 0 || !claimable.worthClaiming(accountsAtShare())) return;
      if (localStart !== undefined) {
        claimDeferred = true;
        return;
      }
      const now = clock.now();
      claimable.claiming();
      claimingNow = true;
      try {
        const outcome = await claim(db, {
          workerId,
          now,
          leaseMs: options.leaseMs,
          limit: free,
          workspaceSlots: slotsPerAccount,
          durable: soleWorker,
        });
        const claimed = outcome.executions;
        // An account's share can cut a claim short only once this worker runs that many executions.
        const shareMayBind = running.size + claimed.length >= slotsPerAccount;
        heldBack = shareMayBind || outcome.limitedGroups > 0;
        const stoppedShort = claimed.length < free && !shareMayBind && outcome.limitedGroups < limitedGroupsPerClaim;
        if (claimed.length > 0) {
          maintenance?.counted(claimed.length);
          for (const execution of claimed) {
            projectAccounts.set(execution.projectId, execution.accountId, Number.POSITIVE_INFINITY);
          }
          const histories = await readHistories(claimed, now);
          for (const execution of claimed) startLeased(execution, histories, now);
        }
        // A claim that found nothing, or stopped short of a limit no share cut, left nothing behind but
        // the backlog of accounts at their share. Any other may have left rows of the accounts it
        // was worth making for; a claim makes no row claimable, so what was known before it still holds.
        if ((claimed.length === 0 || stoppedShort) && outcome.limitedGroups === 0)
          claimable.leftNone(accountsAtShare());
        if (claimed.length > 0 && !stoppedShort) continue;
        return;
      } finally {
        claimingNow = false;
      }
    }
  }

  /**
   * Holds a slot for an execution ingress writes leased to this worker, when a claim would lease it
   * at once: the last claim stopped short and nothing was announced since but the backlog of
   * accounts at their share, the account of the execution's workspace is known and below its share,
   * and no claim or other local start is under way (either would count the slot as free).
   */
  function reserveLocalStart(projectId: string): LocalStart | undefined {
    if (stopped || claimingNow || localStart !== undefined) return undefined;
    if (running.size >= options.concurrency) return undefined;
    const now = clock.now();
    const accountId = projectAccounts.get(projectId, now.getTime());
    if (accountId === undefined) return undefined;
    const atShare = accountsAtShare();
    if (atShare.has(accountId) || claimable.worthClaiming(atShare)) return undefined;
    let settle: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => {
      settle = () => {
        localStart = undefined;
        resolve();
        if (claimDeferred) {
          claimDeferred = false;
          void poke();
        }
      };
    });
    const slot: LocalStart = {
      workerId,
      now,
      leaseExpiresAt: new Date(now.getTime() + options.leaseMs),
      accountId,
      begin: (execution) => {
        try {
          if (stopped) {
            // `stop` waits for this slot, then hands what `running` holds back to the queue.
            running.set(execution.id, startAttempt(execution, undefined, now, timeoutPolicy));
          } else {
            maintenance?.counted(1);
            startLeased(execution, undefined, now);
          }
        } finally {
          settle();
        }
      },
      cancel: () => settle(),
    };
    localStart = { slot, settled };
    return slot;
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

  /**
   * Registers this worker and ends the leases of executions whose worker is gone, so the first claim
   * pass resumes them at once: after a crash on the embedded database (one process at a time) or of
   * a worker whose heartbeat lapsed on PostgreSQL, nothing waits for a lease to run out.
   */
  async function takeOverOrphans(): Promise<void> {
    const now = clock.now();
    await beat(db, { workerId, now, expiresAt: new Date(now.getTime() + options.leaseMs) });
    const ended = await endOrphanedLeases(db, { workerId, now, everyOtherWorker: database.kind === "embedded" });
    if (ended > 0) logger.info({ executions: ended }, "taking over the executions of workers that are gone");
    await forgetLapsedWorkers(db, now);
  }

  async function heartbeat(): Promise<void> {
    const now = clock.now();
    for (const run of running.values()) enforceDeadline(context, run, now);
    const ids = [...running.keys()];
    const expiresAt = new Date(now.getTime() + options.leaseMs);
    const [held] = await Promise.all([
      renewLeases(db, { workerId, executionIds: ids, expiresAt }),
      beat(db, { workerId, now, expiresAt }),
    ]);
    const heldIds = new Map(held.map((entry) => [entry.id, entry.cancelRequestedAt]));
    for (const id of ids) {
      const run = running.get(id);
      if (run !== undefined) afterRenewal(context, run, heldIds.get(id), now);
    }
  }

  await retryWhileUnavailable(takeOverOrphans);
  const unlistenExecutions = await retryWhileUnavailable(() =>
    database.listen(executionsChannel, (payload) => {
      claimable.announced(announcedAccounts(payload));
      void poke();
    }),
  );
  const unlistenCancellations = await retryWhileUnavailable(() =>
    database.listen(cancellationsChannel, (executionId) => {
      const run = running.get(executionId);
      if (run !== undefined) run.cancelRequested = true;
    }),
  );
  let beating = false;
  const tick = setInterval(() => {
    claimable.forget();
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
    poke: () => {
      claimable.forget();
      return poke();
    },
    sandboxes: () => pool.deployments(),
    localStarts: soleWorker ? { reserve: reserveLocalStart } : undefined,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearInterval(tick);
      wakeups.stop();
      await unlistenExecutions().catch(() => undefined);
      await unlistenCancellations().catch(() => undefined);
      await passes;
      await localStart?.settled;
      const left = [...running.values()].filter((run) => !run.done);
      for (const run of left) {
        run.done = true;
        run.sandbox?.abandon();
      }
      await Promise.all(left.map((run) => requeueOnStop(context, run).catch(() => undefined)));
      await Promise.all([...context.finishing]);
      await forgetWorker(db, workerId).catch(() => undefined);
      await maintenance?.settled();
      running.clear();
      await pool.close();
      await sandboxHost.close();
    },
  };
}
