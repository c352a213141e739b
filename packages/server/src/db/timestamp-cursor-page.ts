import { and, desc, eq, lt, or, type SQL } from "drizzle-orm";
import type { AnyPgColumn, PgSelect } from "drizzle-orm/pg-core";

/**
 * Where a newest-first list continues: the instant of the last row a page returned and that row's
 * id, because many rows can share one millisecond and the instant alone cannot tell them apart.
 */
export interface TimestampCursor {
  at: Date;
  id: string;
}

export interface TimestampPageRequest {
  limit: number;
  /** Continues after the row this cursor names; the newest rows when undefined. */
  after: TimestampCursor | undefined;
}

export interface TimestampPage<T> {
  /** Newest first. */
  rows: T[];
  /** Where the next page starts; null on the last page. */
  next: TimestampCursor | null;
}

/** The columns a timestamp-cursor list is ordered by: its instant, then an id unique among its rows. */
export interface TimestampOrder {
  at: AnyPgColumn;
  id: AnyPgColumn;
}

/** Rows strictly older than the cursor in the list's (instant, id) order. */
function olderThanCursor(columns: TimestampOrder, after: TimestampCursor | undefined): SQL | undefined {
  if (after === undefined) return undefined;
  return or(lt(columns.at, after.at), and(eq(columns.at, after.at), lt(columns.id, after.id)));
}

function newestFirst(columns: TimestampOrder): SQL[] {
  return [desc(columns.at), desc(columns.id)];
}

export interface TimestampQuery<T> {
  request: TimestampPageRequest;
  /** At most `limit` rows of the list older than `after` (all when undefined), newest first. */
  selectRows(after: TimestampCursor | undefined, limit: number): Promise<T[]>;
  cursorOf(row: T): TimestampCursor;
}

/**
 * One page of a newest-first list (traces, audit events), `{ data, nextCursor }` on the wire. One
 * row more than the page is read to know whether another page follows.
 */
export async function fetchTimestampPage<T>(query: TimestampQuery<T>): Promise<TimestampPage<T>> {
  const { limit, after } = query.request;
  const fetched = await query.selectRows(after, limit + 1);
  const rows = fetched.slice(0, limit);
  const last = rows.at(-1);
  return { rows, next: fetched.length > limit && last !== undefined ? query.cursorOf(last) : null };
}

/**
 * `fetchTimestampPage` of a table's list under `where`: `select` begins the query afresh (its
 * columns, table and joins, made `$dynamic()`); the cursor's condition, the order and the limit are
 * added here.
 */
export function fetchSelectTimestampPage<TSelect extends PgSelect>(query: {
  request: TimestampPageRequest;
  order: TimestampOrder;
  where: SQL | undefined;
  select(): TSelect;
  cursorOf(row: Awaited<TSelect>[number]): TimestampCursor;
}): Promise<TimestampPage<Awaited<TSelect>[number]>> {
  return fetchTimestampPage({
    request: query.request,
    selectRows: async (after, limit): Promise<Awaited<TSelect>> =>
      await query
        .select()
        .where(and(query.where, olderThanCursor(query.order, after)))
        .orderBy(...newestFirst(query.order))
        .limit(limit),
    cursorOf: query.cursorOf,
  });
}
