import type { Database } from "../db/database.ts";
import { chainedPasses } from "../shared/chained-passes.ts";
import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import type { BacklogRefusal } from "../shared/service-result.ts";
import type { Timers } from "../shared/timers.ts";
import {
  earliestRefusalShare,
  type OldestWait,
  type QueueCount,
  queueAllowance,
  waitsPastBound,
} from "./predicted-wait.ts";
import { type QueueReading, readQueue } from "./queue-reading.ts";

/** How long, in seconds, an execution queued now may be expected to wait before ingress refuses, unless `WEFT_MAX_QUEUE_DELAY` says otherwise. */
export const defaultMaxQueueDelaySeconds = 5;

/** How often each process that ingests reads the queue again. */
export const queueReadingIntervalMs = 1000;

/**
 * How long a refusal waits before it is answered. A caller that sends again at once, whatever its
 * `Retry-After` says (a load generator, a sender's eager retry loop), is otherwise refused as fast
 * as the process can answer, and the refusals take the thread from the executions whose backlog
 * caused them: on the embedded default, 64 such connections took most of it. Held this long, each
 * connection is refused at most once a second (docs/decisions/0123-a-refusal-takes-its-time.md).
 */
export const refusalPauseMs = 1000;

/**
 * Whether a new execution may be queued, decided on the hot path from a reading of the queue that
 * this process refreshes every `queueReadingIntervalMs` (no query per request). Every process that
 * ingests (the `ingress` and `api` roles) reads the database itself, so API processes apart from the
 * workers see the same queue they do.
 */
export interface Backpressure {
  /**
   * Why `projectId` may not queue `executions` new executions now, or `undefined`: `platform` when
   * an execution the workers could start now would wait past the bound (`waitsPastBound`, from the
   * oldest such execution's wait at the last two readings), else `workspace` when one queued in the
   * project's workspace would, by that rule or because this process has admitted to the workspace,
   * since the last reading, as many as its queue allows (`queueAllowance`). `undefined` comes at
   * once, a refusal only after `refusalPauseMs`.
   */
  refusal(projectId: string, executions: number): Promise<BacklogRefusal | undefined>;
  /** Reads the queue now (as every interval does); resolves once a reading begun after the call is in force. */
  refresh(): Promise<void>;
  /** Stops reading; resolves once the reading under way is over. */
  stop(): Promise<void>;
}

export interface BackpressureDependencies {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** What a refusal's pause waits on. */
  timers: Timers;
}

export interface BackpressureOptions {
  /** `WEFT_MAX_QUEUE_DELAY`. */
  maxQueueDelaySeconds: number;
  /** Of a worker's slots, those one account may hold (`workspaceSlots`): an account running as many is at its share. */
  slotsPerAccount: number;
  /** How often to read the queue; `undefined` to read it only when asked (`refresh`). */
  intervalMs: number | undefined;
}

function refusalOf(scope: BacklogRefusal["scope"], maxQueueDelaySeconds: number): BacklogRefusal {
  const wait = `would wait more than ${maxQueueDelaySeconds} s for a worker`;
  const retry = `Nothing was queued; retry in ${maxQueueDelaySeconds} seconds.`;
  return {
    scope,
    retryAfterSeconds: maxQueueDelaySeconds,
    message:
      scope === "platform"
        ? `The platform is saturated: an execution queued now ${wait}. ${retry}`
        : `This workspace's queue is backlogged: an execution queued in it now ${wait}. ${retry}`,
  };
}

/** A workspace's queue at a reading, with how many new executions it may take until the next (`queueAllowance`). */
interface HeldQueue extends QueueCount {
  allowance: number | undefined;
}

/** What a reading decided, and the oldest waits and queues it decided from, for the next reading to compare. */
interface Decision {
  refusesPlatform: boolean;
  refusedProjects: ReadonlySet<string>;
  platformOldest: OldestWait | undefined;
  projectOldest: ReadonlyMap<string, OldestWait>;
  /** The queue of each project's workspace (one object per workspace), for the projects of workspaces with one. */
  queues: ReadonlyMap<string, HeldQueue>;
  /** The same, by workspace. */
  workspaceQueues: ReadonlyMap<string, HeldQueue>;
}

/** The answer to every admission, shared: a submission on the hot path allocates no promise for it. */
const admitted: Promise<undefined> = Promise.resolve(undefined);

const acceptsAll: Decision = {
  refusesPlatform: false,
  refusedProjects: new Set(),
  platformOldest: undefined,
  projectOldest: new Map(),
  queues: new Map(),
  workspaceQueues: new Map(),
};

/** Who a reading made at `readAtMs` refuses, and how many each workspace with a queue may still take, given the decision of the reading before. */
function decide(
  reading: QueueReading,
  readAtMs: number,
  before: Decision,
  bounds: { boundMs: number; aheadMs: number },
): Decision {
  const { boundMs, aheadMs } = bounds;
  const platformOldest =
    reading.saturatedWaitMs === undefined ? undefined : { waitedMs: reading.saturatedWaitMs, readAtMs };
  const projectOldest = new Map<string, OldestWait>();
  const refusedProjects = new Set<string>();
  for (const [projectId, waitedMs] of reading.backlogged) {
    const oldest = { waitedMs, readAtMs };
    projectOldest.set(projectId, oldest);
    if (waitsPastBound(oldest, before.projectOldest.get(projectId), boundMs, aheadMs)) refusedProjects.add(projectId);
  }
  const queues = new Map<string, HeldQueue>();
  const workspaceQueues = new Map<string, HeldQueue>();
  for (const [projectId, { workspaceId, queued, oldestWaitedMs }] of reading.queues) {
    let queue = workspaceQueues.get(workspaceId);
    if (queue === undefined) {
      const count = { queued, oldestWaitedMs, readAtMs, admitted: 0 };
      queue = { ...count, allowance: queueAllowance(count, before.workspaceQueues.get(workspaceId), boundMs) };
      workspaceQueues.set(workspaceId, queue);
    }
    queues.set(projectId, queue);
  }
  return {
    refusesPlatform:
      platformOldest !== undefined && waitsPastBound(platformOldest, before.platformOldest, boundMs, aheadMs),
    refusedProjects,
    platformOldest,
    projectOldest,
    queues,
    workspaceQueues,
  };
}

/**
 * Starts reading the queue every `intervalMs`. A reading that fails (the database unreachable) is
 * logged and refuses nothing: the enqueue that follows meets the database itself.
 */
export function startBackpressure(deps: BackpressureDependencies, options: BackpressureOptions): Backpressure {
  const { db, clock, logger, timers } = deps;
  const { maxQueueDelaySeconds, slotsPerAccount } = options;
  const platformRefusal = refusalOf("platform", maxQueueDelaySeconds);
  const workspaceRefusal = refusalOf("workspace", maxQueueDelaySeconds);
  const boundMs = maxQueueDelaySeconds * 1000;
  let decision = acceptsAll;
  let stopped = false;

  function take(next: Decision): void {
    if (!decision.refusesPlatform && next.refusesPlatform) {
      logger.warn(
        { waitedMs: next.platformOldest?.waitedMs, maxQueueDelaySeconds },
        "ingress refuses new executions with 503: one queued now would wait past WEFT_MAX_QUEUE_DELAY",
      );
    } else if (decision.refusesPlatform && !next.refusesPlatform) {
      logger.info("ingress accepts new executions again: the queue is back within WEFT_MAX_QUEUE_DELAY");
    }
    decision = next;
  }

  /** Counts `executions` admitted to a workspace with a queue, or refuses them once its allowance is spent. */
  function heldBack(queue: HeldQueue | undefined, executions: number): BacklogRefusal | undefined {
    if (queue === undefined) return undefined;
    if (queue.allowance !== undefined && queue.admitted >= queue.allowance) return workspaceRefusal;
    queue.admitted += executions;
    return undefined;
  }

  const passes = chainedPasses(
    async () => {
      try {
        const now = clock.now();
        // A backlog is read from the earliest wait at which it may be refused.
        const reading = await readQueue(db, { now, waitedPastMs: boundMs * earliestRefusalShare, slotsPerAccount });
        // A decision stands until the next reading: it covers what is queued until then.
        take(decide(reading, now.getTime(), decision, { boundMs, aheadMs: options.intervalMs ?? 0 }));
      } catch (error) {
        take(acceptsAll);
        throw error;
      }
    },
    { stopped: () => stopped, onError: (error) => logger.error({ err: error }, "reading the queue failed") },
  );
  const tick = options.intervalMs === undefined ? undefined : setInterval(() => void passes.run(), options.intervalMs);
  tick?.unref();

  return {
    refusal: (projectId, executions) => {
      const refused = decision.refusesPlatform
        ? platformRefusal
        : decision.refusedProjects.has(projectId)
          ? workspaceRefusal
          : heldBack(decision.queues.get(projectId), executions);
      if (refused === undefined) return admitted;
      return new Promise((resolve) => timers.after(refusalPauseMs, () => resolve(refused)));
    },
    refresh: passes.run,
    stop: async () => {
      stopped = true;
      clearInterval(tick);
      await passes.settled();
    },
  };
}
