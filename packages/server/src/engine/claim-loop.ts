import type { Database } from "../db/database.ts";
import type { Clock } from "../shared/clock.ts";
import { createExpiringMap } from "../shared/expiring-map.ts";
import type { Logger } from "../shared/logger.ts";
import type { TimeoutPolicy } from "./attempt-timeout.ts";
import type { AttemptLauncher } from "./attempts/attempt-launch.ts";
import { type RunningAttempt, startAttempt } from "./attempts/running-attempt.ts";
import { createClaimableAccounts } from "./claimable-accounts.ts";
import type { EmbeddedMaintenance } from "./embedded-maintenance.ts";
import { claim, limitedGroupsPerClaim } from "./execution-state/index.ts";
import type { LocalStart } from "./local-starts.ts";

/** Projects whose account a worker remembers for local starts; a project it forgot is claimed once more. */
const maxKnownProjects = 10_000;

export interface ClaimLoopDependencies {
  db: Database;
  clock: Clock;
  logger: Logger;
  workerId: string;
  /** Most executions the worker runs at once. */
  concurrency: number;
  leaseMs: number;
  /** Of `concurrency`, the slots one account may hold across the workspaces it pays for. */
  slotsPerAccount: number;
  /** On the embedded database this is the only worker: every change to the queue is this process's. */
  soleWorker: boolean;
  /** The worker's running attempts: what a claim counts as taken, and what a claimed one joins. */
  running: Map<string, RunningAttempt>;
  launcher: AttemptLauncher;
  timeoutPolicy: TimeoutPolicy;
  maintenance: EmbeddedMaintenance | undefined;
}

export interface ClaimLoop {
  /** Chains claim passes: a call made while a pass runs gets the next one, which covers it. */
  poke(): Promise<void>;
  /** Executions of these accounts (of any, for `undefined`) became claimable, announced or due: a pass looks for them. */
  announced(accountIds: readonly string[] | undefined): void;
  /** An attempt let go of its slot: requeued (`ended` false) or finished. */
  released(accountId: string | undefined, ended: boolean): void;
  /** Forgets what the last passes learnt of accounts left behind, so the next pass claims anyway. */
  forget(): void;
  /** A slot for an execution ingress writes leased to this worker, or `undefined` when a claim would not lease it at once. */
  reserveLocalStart(projectId: string): LocalStart | undefined;
  /** Stops claiming; resolves once the pass under way and any held local start are over. */
  stop(): Promise<void>;
}

/**
 * The worker's claim loop: when to claim, how many, for which accounts, and the slot a local start
 * holds meanwhile. What a claimed execution goes through before its sandbox is the launcher's.
 */
export function createClaimLoop(deps: ClaimLoopDependencies): ClaimLoop {
  const { db, clock, logger, workerId, concurrency, leaseMs, slotsPerAccount, soleWorker, running, maintenance } = deps;
  const { readHistories, startLeased } = deps.launcher;
  const timeoutPolicy = deps.timeoutPolicy;
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
      const free = concurrency - running.size;
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
          leaseMs: leaseMs,
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
    if (running.size >= concurrency) return undefined;
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
      leaseExpiresAt: new Date(now.getTime() + leaseMs),
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

  return {
    poke,
    announced: (accountIds) => {
      claimable.announced(accountIds);
      void poke();
    },
    released: (accountId, ended) => {
      // A requeued execution is claimable, and a claim running now may have counted the freed slot as
      // taken. Otherwise, on the embedded database, what a claim left behind at the account's share
      // is known already; on PostgreSQL other workers requeue and let go of rows unannounced, and a
      // freed slot is the cue to look for them.
      if (accountId !== undefined && (!ended || claimingNow || !soleWorker)) claimable.announced([accountId]);
      if (heldBack || !ended) void poke();
    },
    forget: () => claimable.forget(),
    reserveLocalStart,
    stop: async () => {
      stopped = true;
      await passes;
      await localStart?.settled;
    },
  };
}
