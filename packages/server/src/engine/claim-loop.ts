import type { Database } from "../db/database.ts";
import { chainedPasses } from "../shared/chained-passes.ts";
import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import type { TimeoutPolicy } from "./attempt-timeout.ts";
import type { AttemptLauncher } from "./attempts/attempt-launch.ts";
import { type RunningAttempt, startAttempt } from "./attempts/running-attempt.ts";
import { createClaimableAccounts } from "./claimable-accounts.ts";
import type { EmbeddedMaintenance } from "./embedded-maintenance.ts";
import { claim, claimExpired, limitedGroupsPerClaim } from "./execution-state/index.ts";
import { createLocalStartSlot, type LocalStartSlot } from "./local-start-slot.ts";
import type { LocalStart } from "./local-starts.ts";

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
  /** Ends the runs never started within their time to live, slots free or not; resolves once that pass is over. */
  expireOverdue(): Promise<void>;
  /** A slot for an execution ingress writes leased to this worker, or `undefined` when a claim would not lease it at once. */
  reserveLocalStart(projectId: string): LocalStart | undefined;
  /** Stops claiming; resolves once the pass under way and any held local start are over. */
  stop(): Promise<void>;
}

/**
 * The accounts whose running executions, in all the workspaces they pay for, fill their share of
 * this worker's slots: a claim skips their rows, and a local start refuses them.
 */
function accountsAtShareOf(running: ReadonlyMap<string, RunningAttempt>, slotsPerAccount: number): ReadonlySet<string> {
  const counts = new Map<string, number>();
  for (const run of running.values()) {
    counts.set(run.execution.accountId, (counts.get(run.execution.accountId) ?? 0) + 1);
  }
  return new Set([...counts].flatMap(([accountId, count]) => (count >= slotsPerAccount ? [accountId] : [])));
}

/** What a claim's answer tells of the executions it left behind. */
export interface ClaimLeft {
  /** It may have left executions behind a limit that an ending execution lifts. */
  heldBack: boolean;
  /** It took fewer than it asked for, and no account's share or group limit cut it: nothing is left to claim. */
  stoppedShort: boolean;
  /** It left nothing behind but the backlog of the accounts at their share. */
  leftNone: boolean;
}

export function whatClaimLeft(
  claimed: number,
  limitedGroups: number,
  at: { free: number; running: number; slotsPerAccount: number },
): ClaimLeft {
  // An account's share can cut a claim short only once this worker runs that many executions.
  const shareMayBind = at.running + claimed >= at.slotsPerAccount;
  const stoppedShort = claimed < at.free && !shareMayBind && limitedGroups < limitedGroupsPerClaim;
  return {
    heldBack: shareMayBind || limitedGroups > 0,
    stoppedShort,
    // A claim that found nothing, or stopped short of a limit no share cut, left nothing behind but
    // the backlog of accounts at their share. Any other may have left rows of the accounts it was
    // worth making for; a claim makes no row claimable, so what was known before it still holds.
    leftNone: (claimed === 0 || stoppedShort) && limitedGroups === 0,
  };
}

/** Claims up to `free` executions and hands them to the launcher; what the claim left behind is returned. */
async function claimAndStart(
  deps: ClaimLoopDependencies,
  localStarts: LocalStartSlot,
  free: number,
): Promise<ClaimLeft & { claimed: number }> {
  const { running, slotsPerAccount, launcher } = deps;
  const now = deps.clock.now();
  const outcome = await claim(deps.db, {
    workerId: deps.workerId,
    now,
    leaseMs: deps.leaseMs,
    limit: free,
    workspaceSlots: slotsPerAccount,
    durable: deps.soleWorker,
  });
  const claimed = outcome.executions;
  const left = whatClaimLeft(claimed.length, outcome.limitedGroups, { free, running: running.size, slotsPerAccount });
  if (claimed.length > 0) {
    deps.maintenance?.counted(claimed.length);
    for (const execution of claimed) localStarts.learn(execution.projectId, execution.accountId);
    const histories = await launcher.readHistories(claimed, now);
    for (const execution of claimed) launcher.startLeased(execution, histories, now);
  }
  return { ...left, claimed: claimed.length };
}

/**
 * The worker's claim loop: when to claim, how many, for which accounts, and the slot a local start
 * holds meanwhile. What a claimed execution goes through before its sandbox is the launcher's.
 */
export function createClaimLoop(deps: ClaimLoopDependencies): ClaimLoop {
  const { clock, logger, workerId, concurrency, leaseMs, slotsPerAccount, soleWorker, running, maintenance } = deps;
  const { startLeased } = deps.launcher;
  const timeoutPolicy = deps.timeoutPolicy;
  let stopped = false;
  /** Whether the last claim pass may have left claimable executions behind a limit that an ending execution lifts. */
  let heldBack = true;
  const claimable = createClaimableAccounts();
  const accountsAtShare = () => accountsAtShareOf(running, slotsPerAccount);
  /** From a claim until its executions are in `running`: the leases it took are not all counted there yet. */
  let claimingNow = false;
  const localStarts = createLocalStartSlot({
    clock,
    workerId,
    leaseMs,
    concurrency,
    running,
    accountsAtShare,
    worthClaiming: (atShare) => claimable.worthClaiming(atShare),
    closed: () => stopped || claimingNow,
    begin: (execution, now) => {
      if (stopped) {
        // `stop` waits for this slot, then hands what `running` holds back to the queue.
        running.set(execution.id, startAttempt(execution, undefined, now, timeoutPolicy));
      } else {
        maintenance?.counted(1);
        startLeased(execution, undefined, now);
      }
    },
    claimAgain: () => void poke(),
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
      const free = concurrency - running.size;
      if (free <= 0 || !claimable.worthClaiming(accountsAtShare())) return;
      if (localStarts.held()) {
        localStarts.deferClaim();
        return;
      }
      claimable.claiming();
      claimingNow = true;
      try {
        const { claimed, stoppedShort, ...learnt } = await claimAndStart(deps, localStarts, free);
        heldBack = learnt.heldBack;
        if (learnt.leftNone) claimable.leftNone(accountsAtShare());
        if (claimed > 0 && !stoppedShort) continue;
        return;
      } finally {
        claimingNow = false;
      }
    }
  }

  const passes = chainedPasses(claimOnce, {
    stopped: () => stopped,
    onError: (error) => logger.error({ err: error }, "claiming executions failed"),
  });
  const poke = passes.run;

  // Each ends before its code runs, so it takes no slot past the moment its end is written.
  const expiring = chainedPasses(
    async () => {
      const now = clock.now();
      const expired = await claimExpired(deps.db, { workerId, now, leaseMs, durable: soleWorker });
      for (const execution of expired) startLeased(execution, undefined, now);
    },
    { stopped: () => stopped, onError: (error) => logger.error({ err: error }, "expiring runs failed") },
  );

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
    expireOverdue: expiring.run,
    reserveLocalStart: (projectId) => localStarts.reserve(projectId),
    stop: async () => {
      stopped = true;
      await passes.settled();
      await expiring.settled();
      await localStarts.settled();
    },
  };
}
