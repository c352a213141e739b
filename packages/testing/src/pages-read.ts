import { type Database, sqlRows, type Transaction } from "@weft/server/internals";
import { type SQL, sql } from "drizzle-orm";

/** `executions` and each of its indexes, as rows `c` of `pg_class`. */
export const executionRelations = sql`(c.oid = 'executions'::regclass
  or c.oid in (select indexrelid from pg_index where indrelid = 'executions'::regclass))`;

/** Pages of `executions` and of its indexes that scans have asked for in the current transaction. */
async function executionPagesRead(db: Database | Transaction): Promise<number> {
  const [row] = await sqlRows<{ pages: number }>(
    db,
    sql`select coalesce(sum(pg_stat_get_xact_blocks_fetched(c.oid)), 0)::int as pages from pg_class c
      where ${executionRelations}`,
  );
  return row?.pages ?? 0;
}

/**
 * What `read` returns, run in transaction `tx`, and the pages of `executions` its scans read. With
 * `planned`, the statement `read` runs, the pages of planning it alone (`explain`) are taken off:
 * planning reads a few pages of each partial index of `executions`, however few entries they hold,
 * so that share grows with the table's indexes and says nothing of the scan.
 */
export async function executionPagesReadBy<T>(
  tx: Transaction,
  read: () => Promise<T>,
  planned?: SQL,
): Promise<{ value: T; pages: number }> {
  let planning = 0;
  if (planned !== undefined) {
    const beforePlanning = await executionPagesRead(tx);
    await tx.execute(sql`explain ${planned}`);
    planning = (await executionPagesRead(tx)) - beforePlanning;
  }
  const before = await executionPagesRead(tx);
  const value = await read();
  return { value, pages: (await executionPagesRead(tx)) - before - planning };
}
