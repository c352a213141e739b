import { sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import type { Logger } from "../shared/logger.ts";
import { sqlRows } from "./sql-rows.ts";

/** Claims between two vacuums of the embedded database by default, once the first passes are done. */
export const defaultVacuumEveryClaims = 1000;

/** Claims before the first pass of a process. */
const firstPassClaims = 50;

/**
 * The claim count at which the pass after the one at `previous` runs: twice as far at first, then
 * every `everyClaims`. The engine's statements keep a generic plan made from the statistics of the
 * last analysis, and a fresh database has none: its first plans read the tables as nearly empty
 * (a sequential scan of `spans` in every end) and kept them while the tables grew. With passes at
 * doubling counts, a table that grows with the claims is analyzed again by the time they double.
 */
export function nextPassAt(previous: number, everyClaims: number): number {
  if (previous === 0) return Math.min(firstPassClaims, everyClaims);
  return Math.min(previous * 2, previous + everyClaims);
}

/**
 * The tables whose rows the engine updates over and over: each claim, lease renewal and end of an
 * execution leaves a dead version of its row (and of its span) behind, with its index entries; each
 * usage or count delta is deleted by the roll-up that adds it to a row, whose old version is dead too.
 */
const churnedTables = [
  "executions",
  "spans",
  "usage_deltas",
  "usage_daily",
  "execution_count_deltas",
  "execution_counts",
] as const;

/**
 * A table is analyzed once the rows changed since its last analysis reach this share of its live
 * rows plus the floor (PostgreSQL's autovacuum defaults): the planner needs the tables' proportions,
 * which move with the share changed, while an analysis costs more as the table grows.
 */
const analyzeScaleFactor = 0.1;
const analyzeThreshold = 50;

/**
 * The statistics target of those analyses. An analysis samples 300 rows per unit of it and sorts
 * every sampled column's values, with the thread held; at PostgreSQL's default of 100 that cost
 * grew with the history until it stalled the platform
 * (docs/decisions/0084-analyses-sized-to-the-change.md), and the engine's plans
 * need only the proportions that a smaller sample gives.
 */
const analyzeStatisticsTarget = 10;

export interface EmbeddedMaintenance {
  /**
   * Counts claimed executions; at each pass (`nextPassAt`) the churned tables are vacuumed, and
   * those of them that changed enough since their last analysis are analyzed.
   */
  counted(claims: number): void;
  /** Resolves once no vacuum is running. */
  settled(): Promise<void>;
}

/**
 * PGlite runs PostgreSQL in single-user mode, which has no autovacuum: without this, dead row
 * versions and their index entries pile up for as long as the process runs, and every claim's
 * index scan walks past more of them. A counter, not a timer: the garbage grows with the work done,
 * and an idle platform needs no vacuum. One vacuum at a time; claims go on meanwhile (a plain
 * VACUUM takes no lock that blocks reads or writes).
 */
export function createEmbeddedMaintenance(
  deps: { db: Database; logger: Logger },
  options: { everyClaims: number },
): EmbeddedMaintenance {
  let claimed = 0;
  let passAt = nextPassAt(0, options.everyClaims);
  let running: Promise<void> = Promise.resolve();
  let busy = false;

  async function vacuum(): Promise<void> {
    // The statistics views show what was flushed, at most once a second: the changes of the first
    // pass's claims, made within that second, would be missing from it.
    await deps.db.execute(sql`select pg_stat_force_next_flush()`);
    const stale = await sqlRows<{ relname: string }>(
      deps.db,
      sql`select relname from pg_stat_user_tables
        where relname in (${sql.join(
          churnedTables.map((table) => sql`${table}`),
          sql`, `,
        )})
          and n_mod_since_analyze >= ${analyzeThreshold}::float8 + ${analyzeScaleFactor}::float8 * n_live_tup`,
    );
    const toAnalyze = new Set(stale.map((row) => row.relname));
    for (const table of churnedTables) {
      await deps.db.execute(sql.raw(`vacuum ${table}`));
      if (!toAnalyze.has(table)) continue;
      await deps.db.transaction(async (tx) => {
        await tx.execute(sql.raw(`set local default_statistics_target = ${analyzeStatisticsTarget}`));
        await tx.execute(sql.raw(`analyze ${table}`));
      });
    }
  }

  return {
    counted: (claims) => {
      claimed += claims;
      if (claimed < passAt || busy) return;
      passAt = nextPassAt(claimed, options.everyClaims);
      busy = true;
      running = vacuum()
        .catch((error: unknown) => deps.logger.warn({ err: error }, "vacuuming the embedded database failed"))
        .finally(() => {
          busy = false;
        });
    },
    settled: () => running,
  };
}
