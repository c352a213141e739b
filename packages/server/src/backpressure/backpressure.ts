import type { Database } from "../db/database.ts";
import { chainedPasses } from "../shared/chained-passes.ts";
import type { Clock } from "../shared/clock.ts";
import type { Logger } from "../shared/logger.ts";
import type { BacklogRefusal } from "../shared/service-result.ts";
import type { Timers } from "../shared/timers.ts";
import { earliestRefusalShare, type OldestWait, waitsPastBound } from "./predicted-wait.ts";
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
   * Why `projectId` may not queue an execution now, or `undefined`: `platform` when an execution
   * the workers could start now would wait past the bound (`waitsPastBound`, from the oldest such
   * execution's wait at the last two readings), else `workspace` when one queued in the project's
   * workspace would. `undefined` comes at once, a refusal only after `refusalPauseMs`.
   */
  refusal(projectId: string): Promise<BacklogRefusal | undefined>;
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

/** What a reading decided, and the oldest waits it decided from, for the next reading to compare. */
interface Decision {
  refusesPlatform: boolean;
  refusedProjects: ReadonlySet<string>;
  platformOldest: OldestWait | undefined;
  projectOldest: ReadonlyMap<string, OldestWait>;
}

/** The answer to every admission, shared: a submission on the hot path allocates no promise for it. */
const admitted: Promise<undefined> = Promise.resolve(undefined);

const acceptsAll: Decision = {
  refusesPlatform: false,
  refusedProjects: new Set(),
  platformOldest: undefined,
  projectOldest: new Map(),
};

/** Who a reading made at `readAtMs` refuses, given the decision of the reading before. */
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
  return {
    refusesPlatform:
      platformOldest !== undefined && waitsPastBound(platformOldest, before.platformOldest, boundMs, aheadMs),
    refusedProjects,
    platformOldest,
    projectOldest,
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
    refusal: (projectId) => {
      const refused = decision.refusesPlatform
        ? platformRefusal
        : decision.refusedProjects.has(projectId)
          ? workspaceRefusal
          : undefined;
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
