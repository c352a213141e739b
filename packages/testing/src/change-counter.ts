import type { Database } from "@weft/server/internals";
import { sql } from "drizzle-orm";

/** A table and the row events on it that count as a change, e.g. `insert or delete` or `update of revoked_at`. */
export type WatchedTable = readonly [table: string, events: string];

/**
 * Counts, in the database itself, every row event of the watched tables, and returns a reader of
 * the count: one cheap query tells whether anything changed, where comparing the tables' contents
 * after every fuzz input cost more than the input. Row triggers count only rows really written, and
 * a rolled-back write takes its count with it.
 */
export async function installChangeCounter(
  db: Database,
  watched: readonly WatchedTable[],
): Promise<() => Promise<string>> {
  await db.execute(sql`create table weft_test_changes (changes bigint not null)`);
  await db.execute(sql`insert into weft_test_changes values (0)`);
  await db.execute(
    sql`create function weft_test_count_change() returns trigger language plpgsql as $$
      begin update weft_test_changes set changes = changes + 1; return null; end $$`,
  );
  for (const [table, events] of watched) {
    await db.execute(
      sql.raw(
        `create trigger weft_test_count_${table} after ${events} on ${table} for each row execute function weft_test_count_change()`,
      ),
    );
  }
  return async () => {
    const result = (await db.execute(sql`select changes from weft_test_changes`)) as unknown as {
      rows: { changes: string | number }[];
    };
    return String(result.rows[0]?.changes);
  };
}
