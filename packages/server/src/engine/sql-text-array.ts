import { type SQL, sql } from "drizzle-orm";

/** A `text[]` parameter (a JSON path's segments for `#>`): drizzle would spread a plain array into a list. */
export function textArray(segments: readonly string[]): SQL {
  return segments.length === 0
    ? sql`'{}'::text[]`
    : sql`array[${sql.join(
        segments.map((segment) => sql`${segment}::text`),
        sql`, `,
      )}]`;
}
