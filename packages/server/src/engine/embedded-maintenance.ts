import { sql } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import type { Logger } from "../shared/logger.ts";

/** Claims between two vacuums of the embedded database by default. */
export const defaultVacuumEveryClaims = 1000;

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

export interface EmbeddedMaintenance {
  /** Counts claimed executions; every `everyClaims` of them the churned tables are vacuumed. */
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
  let sinceLast = 0;
  let running: Promise<void> = Promise.resolve();
  let busy = false;

  async function vacuum(): Promise<void> {
    for (const table of churnedTables) await deps.db.execute(sql.raw(`vacuum (analyze) ${table}`));
  }

  return {
    counted: (claims) => {
      sinceLast += claims;
      if (sinceLast < options.everyClaims || busy) return;
      sinceLast = 0;
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
