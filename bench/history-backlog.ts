import type { Database } from "@weft/server/internals";
import {
  defaultRetentionPeriods,
  endedCondition,
  pruneHistory,
  retentionPacing,
  systemClock,
  systemTimers,
} from "@weft/server/internals";
import { type SQL, sql } from "drizzle-orm";

const dayMs = 24 * 60 * 60 * 1000;

export interface HistorySeed {
  projectId: string;
  deploymentId: string;
  count: number;
  /** 60 by default: a history that retention has not caught up with yet (after an upgrade, or a lowered period). */
  finishedDaysAgo?: number;
  /**
   * Inserted as queued, then leased, then finished, as the engine moves them: each step leaves the
   * index entries and dead row versions that executions run by a worker leave behind.
   */
  throughQueue?: boolean;
}

/**
 * Inserts `count` finished executions, each with its trigger and execution spans. One statement per
 * table (and per state change), so that seeding takes seconds or minutes, not a run of the engine.
 */
export async function seedFinishedHistory(db: Database, input: HistorySeed): Promise<void> {
  const at = new Date(Date.now() - (input.finishedDaysAgo ?? 60) * dayMs).toISOString();
  const status = input.throughQueue === true ? "queued" : "succeeded";
  // Due and leased only in the future while they pass through, so that a running worker leaves them alone.
  const later = new Date(Date.now() + dayMs).toISOString();
  const runAt = input.throughQueue === true ? later : at;
  // One second apart, the last at `at`: lists ordered by time meet distinct times, as in a real history.
  const rowAt = sql`${at}::timestamptz - (${input.count} - g) * interval '1 second'`;
  await db.execute(sql`
    insert into executions (id, project_id, deployment_id, workflow, status, input, output, attempt, max_attempts,
      retry_min_delay_ms, retry_max_delay_ms, run_at, trigger_kind, trigger_name, trace_id, execution_span_id, logs,
      created_at, started_at, finished_at)
    select 'exe_old' || lpad(g::text, 19, '0'), ${input.projectId}, ${input.deploymentId}, 'ingest', ${status},
      '{"event":"order.created"}'::jsonb, '{"ok":true}'::jsonb, 1, 3, 1000, 60000, ${runAt}::timestamptz, 'webhook',
      'orders', md5(g::text), substr(md5('execution' || g), 1, 16), '[]'::jsonb, ${rowAt}, ${rowAt}, ${rowAt}
    from generate_series(1, ${input.count}) g`);
  await db.execute(sql`
    insert into spans (span_id, trace_id, parent_span_id, project_id, execution_id, workflow, name, kind, start_time,
      end_time, attributes, status_code)
    select substr(md5(kind || g), 1, 16), md5(g::text), case when kind = 'execution' then substr(md5('trigger' || g), 1, 16) end,
      ${input.projectId}, 'exe_old' || lpad(g::text, 19, '0'), 'ingest', kind || ' ingest', kind, ${rowAt}, ${rowAt},
      '{}'::jsonb, 'ok'
    from generate_series(1, ${input.count}) g, (values ('trigger'), ('execution')) as kinds(kind)`);
  if (input.throughQueue === true) {
    await db.execute(sql`update executions set status = 'running', lease_owner = 'wrk_seed',
      lease_expires_at = ${later}::timestamptz where id like 'exe_old%' and status = 'queued'`);
    await db.execute(sql`update executions set status = 'succeeded', lease_owner = null, lease_expires_at = null,
      run_at = finished_at where id like 'exe_old%' and status = 'running'`);
  }
  // Counted as ended, so that retention's deletion of them takes back counts that exist.
  await appendEndDeltas(db, sql`id like 'exe_old%'`);
}

/**
 * What the engine's end statement appends for each execution it ends (its count, and its start in
 * the meters), for the ended executions `where` selects that a seed ended with a bare update: set
 * based, so that a seed of a million stays minutes long.
 */
export async function appendEndDeltas(db: Database, where: SQL): Promise<void> {
  await db.execute(sql`insert into execution_count_deltas (project_id, minute, status, n)
    select project_id, date_trunc('minute', created_at, 'UTC'), status, count(*)::int from executions
    where ${where} and ${endedCondition} group by 1, 2, 3`);
  await db.execute(sql`insert into usage_deltas (project_id, at, trigger_kind, executions, bytes)
    select project_id, created_at, trigger_kind, 1, coalesce(octet_length(input::text), 0) from executions
    where ${where} and ${endedCondition}`);
}

/**
 * Deletes expired history as the worker's retention task does while it has a backlog (passes back
 * to back, each pacing its batches), until `stop` is called or nothing is left.
 */
export function pruneContinuously(db: Database): { stop(): Promise<{ executions: number; spans: number }> } {
  let stopped = false;
  const deleted = { executions: 0, spans: 0 };
  const running = (async () => {
    while (!stopped) {
      const report = await pruneHistory(
        db,
        { clock: systemClock, timers: systemTimers },
        defaultRetentionPeriods,
        retentionPacing,
      );
      deleted.executions += report.executions;
      deleted.spans += report.spans;
      if (report.complete) return;
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await running;
      return deleted;
    },
  };
}
