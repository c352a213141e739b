import { type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { sqlRows } from "../engine/sql-rows.ts";
import type { Clock } from "../shared/clock.ts";
import type { Timers } from "../shared/timers.ts";

export interface RetentionPeriods {
  /** Days a finished execution (with its steps, spans, wait tokens and idempotency keys) and an event are kept, unless its project says otherwise. */
  executionDays: number;
  /** Days expired idempotency keys, used assertion ids, schedule ticks and registrations that issued nothing are kept. */
  bookkeepingDays: number;
}

export const defaultRetentionPeriods: RetentionPeriods = { executionDays: 30, bookkeepingDays: 7 };

export interface PruneOptions {
  /** Rows deleted per statement: each statement holds its row locks only this long. */
  batchSize: number;
  /** Once this has passed, the pass stops after its current batch; the next pass goes on. */
  budgetMs: number;
  /** After each batch, a pause this many times as long as the batch took: the share left to other work. */
  pauseFactor: number;
}

/** What the worker uses: batches of 100 rows, three times their time left to the rest, 5 s per pass. */
export const retentionPacing = { batchSize: 100, pauseFactor: 3, budgetMs: 5000 } as const satisfies PruneOptions;

export interface PruneReport {
  executions: number;
  spans: number;
  idempotencyKeys: number;
  assertionIds: number;
  registrations: number;
  scheduleTicks: number;
  alertDeliveries: number;
  /** Windows of throttles and rate limits whose time had passed (`flow-control/`): such a row says no more than none. */
  flowControlWindows: number;
  /** Events sent before the execution retention period (the project's own, or the default). */
  events: number;
  /** False when the time budget ran out with rows left to delete. */
  complete: boolean;
}

const dayMs = 24 * 60 * 60 * 1000;

/**
 * One batch of each bookkeeping table: rows whose use ended `bookkeepingDays` ago. Each names the
 * indexed column it walks; `skip locked` leaves rows another process is deleting (or using) alone.
 */
const bookkeeping = [
  {
    counted: "idempotencyKeys",
    delete: (cutoff: string, limit: number) => sql`delete from idempotency_keys where ctid = any(array(
      select ctid from idempotency_keys where expires_at < ${cutoff}::timestamptz limit ${limit} for update skip locked))`,
  },
  {
    counted: "assertionIds",
    delete: (cutoff: string, limit: number) => sql`delete from used_assertion_ids where ctid = any(array(
      select ctid from used_assertion_ids where expires_at < ${cutoff}::timestamptz limit ${limit} for update skip locked))`,
  },
  {
    counted: "scheduleTicks",
    delete: (cutoff: string, limit: number) => sql`delete from schedule_ticks where ctid = any(array(
      select ctid from schedule_ticks where fired_at < ${cutoff}::timestamptz limit ${limit} for update skip locked))`,
  },
  {
    // A pending delivery is still to be tried, whatever its age.
    counted: "alertDeliveries",
    delete: (cutoff: string, limit: number) => sql`delete from alert_deliveries where id in (
      select id from alert_deliveries where status <> 'pending' and created_at < ${cutoff}::timestamptz
      limit ${limit} for update skip locked)`,
  },
  {
    // Only registrations that never issued a credential: an agent's registration is its record.
    counted: "registrations",
    delete: (cutoff: string, limit: number) => sql`delete from registrations where id in (
      select id from registrations where credential_id is null and created_at < ${cutoff}::timestamptz
      limit ${limit} for update skip locked)`,
  },
  {
    counted: "flowControlWindows",
    delete: (cutoff: string, limit: number) => sql`delete from flow_control_windows where ctid = any(array(
      select ctid from flow_control_windows where next_at < ${cutoff}::timestamptz limit ${limit} for update skip locked))`,
  },
] as const satisfies readonly {
  counted: keyof PruneReport;
  delete: (cutoff: string, limit: number) => SQL;
}[];

/**
 * Deletes, in batches, the history that has outlived its retention period. A project's own
 * `retention_days` wins over the default. Every batch is a range scan of an index that stops after
 * `batchSize` rows, so its cost does not grow with the history kept (see
 * docs/decisions/0063-retention.md).
 */
export async function pruneHistory(
  db: Database,
  deps: { clock: Clock; timers: Timers },
  periods: RetentionPeriods,
  options: PruneOptions,
): Promise<PruneReport> {
  let outOfTime = false;
  const cancelBudget = deps.timers.after(options.budgetMs, () => {
    outOfTime = true;
  });
  /**
   * Runs one batch, then waits `pauseFactor` times as long. Ingest shares the database (on the
   * embedded one, its only connection and this process's thread) with the deletion: the pause keeps
   * its share of both at 1 / (1 + pauseFactor), and it is also the turn of the event loop that the
   * embedded database, answering in microtasks, would otherwise never give a waiting request.
   */
  async function paced<T>(batch: () => Promise<T>): Promise<T> {
    const started = performance.now();
    const result = await batch();
    const pauseMs = (performance.now() - started) * options.pauseFactor;
    await new Promise<void>((resolve) => deps.timers.after(pauseMs, resolve));
    return result;
  }
  const report: PruneReport = {
    executions: 0,
    spans: 0,
    idempotencyKeys: 0,
    assertionIds: 0,
    registrations: 0,
    scheduleTicks: 0,
    alertDeliveries: 0,
    flowControlWindows: 0,
    events: 0,
    complete: true,
  };
  try {
    const now = deps.clock.now().getTime();
    const ownPeriods = await sqlRows<{ id: string; days: number }>(
      db,
      sql`select id, retention_days as days from projects where retention_days is not null`,
    );
    const cutoffOf = (days: number) => new Date(now - days * dayMs).toISOString();
    const executionBatches = [
      // Projects that follow the default: a walk of the finished-at index, oldest first.
      () => sql`select id from executions
        where finished_at is not null and finished_at < ${cutoffOf(periods.executionDays)}::timestamptz
          and project_id not in (select id from projects where retention_days is not null)
        order by finished_at limit ${options.batchSize} for update skip locked`,
      // Each project with its own period: its executions by creation, which comes before the finish.
      ...ownPeriods.map((project) => {
        const cutoff = cutoffOf(project.days);
        return () => sql`select id from executions
          where project_id = ${project.id} and created_at < ${cutoff}::timestamptz
            and finished_at is not null and finished_at < ${cutoff}::timestamptz
          order by created_at limit ${options.batchSize} for update skip locked`;
      }),
    ];
    for (const doomed of executionBatches) {
      for (;;) {
        if (outOfTime) return { ...report, complete: false };
        const [batch] = await paced(() =>
          sqlRows<{ executions: number; spans: number }>(
            db,
            sql`with doomed as (${doomed()}),
              gone as (delete from executions where id in (select id from doomed) returning id),
              gone_spans as (delete from spans where execution_id in (select id from gone) returning 1)
            select (select count(*) from gone)::int as executions, (select count(*) from gone_spans)::int as spans`,
          ),
        );
        report.executions += batch?.executions ?? 0;
        report.spans += batch?.spans ?? 0;
        if ((batch?.executions ?? 0) < options.batchSize) break;
      }
    }
    // Events are kept as long as executions: the executions they started name them.
    const eventBatches = [
      () => sql`select id from events
        where sent_at < ${cutoffOf(periods.executionDays)}::timestamptz
          and project_id not in (select id from projects where retention_days is not null)
        order by sent_at limit ${options.batchSize} for update skip locked`,
      ...ownPeriods.map(
        (project) => () =>
          sql`select id from events
          where project_id = ${project.id} and sent_at < ${cutoffOf(project.days)}::timestamptz
          order by sent_at limit ${options.batchSize} for update skip locked`,
      ),
    ];
    for (const doomed of eventBatches) {
      for (;;) {
        if (outOfTime) return { ...report, complete: false };
        const [batch] = await paced(() =>
          sqlRows<{ events: number }>(
            db,
            sql`with gone as (delete from events where id in (${doomed()}) returning 1)
              select count(*)::int as events from gone`,
          ),
        );
        report.events += batch?.events ?? 0;
        if ((batch?.events ?? 0) < options.batchSize) break;
      }
    }
    const bookkeepingCutoff = new Date(now - periods.bookkeepingDays * dayMs).toISOString();
    for (const table of bookkeeping) {
      for (;;) {
        if (outOfTime) return { ...report, complete: false };
        const [deleted] = await paced(() =>
          sqlRows<{ count: number }>(
            db,
            sql`with gone as (${table.delete(bookkeepingCutoff, options.batchSize)} returning 1) select count(*)::int as count from gone`,
          ),
        );
        const count = deleted?.count ?? 0;
        report[table.counted] += count;
        if (count < options.batchSize) break;
      }
    }
    return report;
  } finally {
    cancelBudget();
  }
}
