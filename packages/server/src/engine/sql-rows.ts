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
 * for the WAL flush. The worker's writes that may be lost and redone use it (claims, attempt ends,
 * lease renewals and its heartbeat): a crash of the database (on the embedded one, of the process)
 * can lose the last of them, and the execution is then claimed again and replays its stored steps.
 * Step results never use it (a stored step is never run again), nor do triggers or API writes (an
 * accepted trigger is never lost). The CTE must be referenced (`relaxedCommitUsed`) for PostgreSQL
 * to evaluate it.
 */
export const relaxedCommit = sql`relaxed_commit as (select set_config('synchronous_commit', 'off', true) as setting)`;
export const relaxedCommitUsed = sql`(select count(*) from relaxed_commit)`;

/** The same, as a statement for an explicit transaction. */
export const relaxTransactionCommit = sql`select set_config('synchronous_commit', 'off', true)`;
