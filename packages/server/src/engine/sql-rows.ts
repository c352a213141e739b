import { type SQL, sql } from "drizzle-orm";
import type { Database, Transaction } from "../db/database.ts";

/** Runs a raw statement and returns its rows; both drivers answer `{ rows }`. */
export async function sqlRows<Row>(db: Database | Transaction, query: SQL): Promise<Row[]> {
  const result = (await db.execute(query)) as unknown as { rows: Row[] };
  return result.rows;
}

/** A value bound as jsonb (drivers would turn JS arrays into PostgreSQL arrays). */
export function jsonParam(value: unknown): string {
  return JSON.stringify(value ?? null);
}

/**
 * A CTE (`relaxed_commit`) that makes the statement's implicit transaction commit without waiting
 * for the WAL flush. The worker's own writes (claims, step results, attempt ends) use it: a worker
 * crash loses nothing, since PostgreSQL has the commit; only a crash of the database server itself
 * can lose the last fraction of a second of them, and those steps then run again. Triggers and API
 * writes keep synchronous commits (an accepted trigger is never lost). The CTE must be referenced
 * (`relaxedCommitUsed`) for PostgreSQL to evaluate it.
 */
export const relaxedCommit = sql`relaxed_commit as (select set_config('synchronous_commit', 'off', true) as setting)`;
export const relaxedCommitUsed = sql`(select count(*) from relaxed_commit)`;

/** The same, as a statement for an explicit transaction. */
export const relaxTransactionCommit = sql`select set_config('synchronous_commit', 'off', true)`;
