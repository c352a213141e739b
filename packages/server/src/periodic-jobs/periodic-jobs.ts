import { dispatchAlerts } from "../alerts/alert-dispatcher.ts";
import type { AlertPacing } from "../alerts/alert-policy.ts";
import type { PlanCatalogue } from "../billing/plans.ts";
import { createStatementCloser } from "../billing/statement-closer.ts";
import { rollUpUsageDeltas } from "../billing/usage-roll-up.ts";
import type { Database } from "../db/database.ts";
import type { SecretKeyring } from "../integrations/secret-sealing.ts";
import type { Mailer } from "../mail/mailer.ts";
import { startHistoryPruner } from "../retention/history-pruner.ts";
import {
  defaultRetentionPeriods,
  type PruneReport,
  type RetentionPeriods,
  retentionPacing,
} from "../retention/prune-history.ts";
import { fireDueSchedules } from "../schedules/fire-due-schedules.ts";
import { chainedPasses } from "../shared/chained-passes.ts";
import type { Clock } from "../shared/clock.ts";
import type { GuardedFetch } from "../shared/guarded-fetch.ts";
import { createIdGenerator } from "../shared/ids.ts";
import type { Logger } from "../shared/logger.ts";
import { systemTimers } from "../shared/timers.ts";
import { rollUpExecutionCounts } from "../studio/execution-count-roll-up.ts";
import { createDeltaRoller } from "./delta-roller.ts";

export interface PeriodicJobsDependencies {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** The plans: schedules' quotas and the monthly statements. */
  catalogue: PlanCatalogue;
  /**
   * What failure notices go out with, and the keys that open webhook secrets; without both, this
   * process sends none and leaves recorded failures to the processes that do.
   */
  alerts?: { mailer: Mailer; outbound: GuardedFetch; pacing: AlertPacing; keyring: SecretKeyring } | undefined;
}

export interface PeriodicJobsOptions {
  /** How often the jobs look for work: the worker's poll interval. */
  intervalMs: number;
  /** How long finished executions and bookkeeping rows are kept (30 and 7 days by default). */
  retention?: RetentionPeriods | undefined;
}

export interface PeriodicJobs {
  /** Starts the executions of the schedules whose tick has come (as every interval does); resolves once started. */
  fireSchedules(): Promise<void>;
  /** Turns recorded failures into notices and sends the due deliveries now (as every interval does); resolves once done. */
  dispatchAlerts(): Promise<void>;
  /** Closes the previous month's statements now (as the first pass of a month does); how many this wrote. */
  closeStatements(): Promise<number>;
  /** Rolls the pending deltas up (daily meters, execution counts) now, as the periodic pass does; how many it moved. */
  rollUpDeltas(): Promise<number>;
  /** Deletes the history past its retention period now (as the hourly task does), and reports what went. */
  pruneHistory(): Promise<PruneReport>;
  /** Stops the passes, waits for those under way, and rolls up what deltas are left. */
  stop(): Promise<void>;
}

/**
 * The jobs that run beside a worker on a timer, each on its own: firing due schedules, sending
 * failure notices, closing monthly statements, rolling up deltas and pruning history. Started by
 * the composition root wherever a worker runs, and stopped after it, so the deltas of the
 * executions it hands back are rolled up too.
 */
export function startPeriodicJobs(deps: PeriodicJobsDependencies, options: PeriodicJobsOptions): PeriodicJobs {
  const { db, clock, logger, catalogue } = deps;
  let stopped = false;
  const ids = createIdGenerator(clock);
  const firing = chainedPasses(() => fireDueSchedules(db, { clock, ids, catalogue }), {
    stopped: () => stopped,
    onError: (error) => logger.error({ err: error }, "firing schedules failed"),
  });
  const alerts = deps.alerts;
  const alerting = chainedPasses(
    async () => {
      if (alerts !== undefined) await dispatchAlerts({ db, ids, clock, logger, ...alerts });
    },
    { stopped: () => stopped, onError: (error) => logger.error({ err: error }, "sending failure notices failed") },
  );
  // Real time, not injected timers: its pauses pace work against the machine's speed, and a test
  // that fires the sandbox's deadlines must not fire (or stall) a retention pass with them.
  const pruner = startHistoryPruner(
    { db, clock, logger, timers: systemTimers },
    { periods: options.retention ?? defaultRetentionPeriods, intervalMs: 60 * 60 * 1000, ...retentionPacing },
  );
  const statements = createStatementCloser({ db, clock, logger, catalogue });
  const deltas = createDeltaRoller({
    clock,
    logger,
    rollUps: [() => rollUpUsageDeltas(db), () => rollUpExecutionCounts(db)],
  });
  const tick = setInterval(() => {
    void firing.run();
    void alerting.run();
    statements.tick();
    void deltas.tick();
  }, options.intervalMs);
  tick.unref();

  return {
    fireSchedules: firing.run,
    dispatchAlerts: alerting.run,
    closeStatements: statements.close,
    rollUpDeltas: deltas.drain,
    pruneHistory: pruner.prune,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      clearInterval(tick);
      await pruner.stop();
      await firing.settled();
      await alerting.settled();
      // Readers count pending deltas anyway; draining leaves none behind a process that is gone for good.
      await deltas.drain().catch((error: unknown) => logger.error({ err: error }, "rolling up deltas failed"));
    },
  };
}
