import type { Database } from "@weft/server/internals";
import { sql } from "drizzle-orm";

/**
 * How often the named statements whose text holds `marker` (and not `apartFrom`) have run, from
 * `pg_prepared_statements`: on the embedded database's one connection, every statement the platform
 * ran (PostgreSQL counts each plan it used for one). Matched here rather than in the query, whose
 * own text would match.
 */
export async function statementRuns(db: Database, marker: string, apartFrom?: string): Promise<number> {
  const result = (await db.execute(
    sql`select statement, (generic_plans + custom_plans)::int as runs from pg_prepared_statements`,
  )) as unknown as { rows: { statement: string; runs: number }[] };
  return result.rows
    .filter((row) => row.statement.includes(marker) && !(apartFrom !== undefined && row.statement.includes(apartFrom)))
    .reduce((total, row) => total + row.runs, 0);
}
