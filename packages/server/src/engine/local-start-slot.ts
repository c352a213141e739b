import type { Clock } from "../shared/clock.ts";
import { createExpiringMap } from "../shared/expiring-map.ts";
import type { RunningAttempt } from "./attempts/running-attempt.ts";
import type { ClaimedExecution } from "./execution-state/claim.ts";
import type { LocalStart } from "./local-starts.ts";

/** Projects whose account a worker remembers for local starts; a project it forgot is claimed once more. */
const maxKnownProjects = 10_000;

export interface LocalStartSlotDependencies {
  clock: Clock;
  workerId: string;
  leaseMs: number;
  /** Most executions the worker runs at once. */
  concurrency: number;
  /** The worker's running attempts, which count as taken slots. */
  running: ReadonlyMap<string, RunningAttempt>;
  /** The accounts whose running executions fill their share of the worker's slots. */
  accountsAtShare(): ReadonlySet<string>;
  /** Whether a claim may find executions of accounts other than those at their share (`claimable-accounts.ts`). */
  worthClaiming(atShare: ReadonlySet<string>): boolean;
  /** The worker stopped, or a claim is under way (which would count the slot as free): no slot is held then. */
  closed(): boolean;
  /** Runs the execution written leased, from the slot's `now`. */
  begin(execution: ClaimedExecution, now: Date): void;
  /** A claim pass put off while the slot was held: it runs once the slot is given up. */
  claimAgain(): void;
}

/** The one slot a worker holds at a time for an execution ingress writes leased to it (a local start). */
export interface LocalStartSlot {
  /** A slot for an execution of `projectId`, or `undefined` when a claim would not lease it at once. */
  reserve(projectId: string): LocalStart | undefined;
  /** Whether a slot is held now; a claim must wait for it, and `deferClaim` has it run once the slot is given up. */
  held(): boolean;
  deferClaim(): void;
  /** Learnt from a claim: the account that pays for a project's workspace, which a local start's share is counted in. */
  learn(projectId: string, accountId: string): void;
  /** Resolves once the slot held, if any, is given up. */
  settled(): Promise<void>;
}

export function createLocalStartSlot(deps: LocalStartSlotDependencies): LocalStartSlot {
  const { clock, workerId, leaseMs, concurrency, running } = deps;
  /** The slot held for an execution ingress is writing leased to this worker; a claim waits for it. */
  let localStart: { slot: LocalStart; settled: Promise<void> } | undefined;
  /** A claim pass found the slot held: the slot's end starts another. */
  let claimDeferred = false;
  /**
   * The account that pays for a project's workspace. Entries never expire (a project stays in its
   * workspace, and a workspace's account never changes); the map is there for its bound.
   */
  const projectAccounts = createExpiringMap<string, string>(maxKnownProjects);

  /**
   * Holds a slot for an execution ingress writes leased to this worker, when a claim would lease it
   * at once: the last claim stopped short and nothing was announced since but the backlog of
   * accounts at their share, the account of the execution's workspace is known and below its share,
   * and no claim or other local start is under way (either would count the slot as free).
   */
  function reserve(projectId: string): LocalStart | undefined {
    if (deps.closed() || localStart !== undefined) return undefined;
    if (running.size >= concurrency) return undefined;
    const now = clock.now();
    const accountId = projectAccounts.get(projectId, now.getTime());
    if (accountId === undefined) return undefined;
    const atShare = deps.accountsAtShare();
    if (atShare.has(accountId) || deps.worthClaiming(atShare)) return undefined;
    let settle: () => void = () => undefined;
    const settled = new Promise<void>((resolve) => {
      settle = () => {
        localStart = undefined;
        resolve();
        if (claimDeferred) {
          claimDeferred = false;
          deps.claimAgain();
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
          deps.begin(execution, now);
        } finally {
          settle();
        }
      },
      cancel: () => settle(),
    };
    localStart = { slot, settled };
    return slot;
  }

  return {
    reserve,
    held: () => localStart !== undefined,
    deferClaim: () => {
      claimDeferred = true;
    },
    learn: (projectId, accountId) => projectAccounts.set(projectId, accountId, Number.POSITIVE_INFINITY),
    settled: async () => {
      await localStart?.settled;
    },
  };
}
