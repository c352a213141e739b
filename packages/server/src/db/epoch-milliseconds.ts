import { type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";

/**
 * A timestamptz column as milliseconds since the epoch, for lists whose rows are read as one JSON
 * value: JavaScript turns the number into the wire's ISO 8601 text (`new Date(ms).toISOString()`)
 * for a fraction of what PostgreSQL's `to_char` costs (a page of 20 projects: 0.33 ms of query with
 * `to_char`, 0.2 ms without). Instants come from the platform's clock, so milliseconds are exact.
 */
export function epochMilliseconds(column: AnyPgColumn): SQL<number> {
  return sql<number>`(extract(epoch from ${column}) * 1000)::int8`;
}
