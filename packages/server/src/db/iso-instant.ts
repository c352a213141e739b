import { type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";

/**
 * A timestamptz column as the ISO 8601 text `Date.prototype.toISOString` writes (UTC, milliseconds,
 * `Z`), whatever the session's time zone: for lists whose rows go to the wire as they are read.
 */
export function isoInstant(column: AnyPgColumn): SQL<string> {
  return sql<string>`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}
