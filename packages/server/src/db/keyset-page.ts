import { asc, desc, gt, gte, lt, lte, type SQL, sql } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";

/**
 * One page of a list ordered by a time-sortable id: `forward` reads `size` rows after `cursorId`
 * (or from the start), `backward` reads `size` rows before it (or up to the end).
 */
export interface PageRequest {
  direction: "forward" | "backward";
  size: number;
  cursorId: string | undefined;
}

export interface KeysetPage<T> {
  /** In ascending id order, whichever the direction. */
  rows: T[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  totalCount: number;
}

/** Where a slice starts relative to the cursor id. */
export type CursorComparison = "after" | "before" | "atOrBefore" | "atOrAfter";

/**
 * One query's worth of a keyset list: the rows beyond (or behind) a cursor, in id order, at most
 * `limit`. Few shapes exist, so a list can keep one prepared statement per shape (`sliceKey`).
 */
export interface KeysetSlice {
  cursor: { comparison: CursorComparison; id: string } | undefined;
  order: "asc" | "desc";
  limit: number;
}

export interface KeysetQuery<T> {
  request: PageRequest;
  /**
   * The rows of the slice, each with how many rows match the slice's conditions before its limit
   * (select `matchingCount` for it), so a page and its total cost one query.
   */
  selectSlice(slice: KeysetSlice): Promise<{ row: T; matchingCount: number }[]>;
}

/** A name for the shape of a slice (not its values), e.g. to name its prepared statement. */
export function sliceKey(slice: KeysetSlice): string {
  return `${slice.cursor?.comparison ?? "all"}_${slice.order}`;
}

const comparisons = { after: gt, before: lt, atOrBefore: lte, atOrAfter: gte } as const;

/** The cursor condition of a slice's shape, with the cursor id as the placeholder `cursor`. */
export function cursorCondition(idColumn: AnyPgColumn, slice: KeysetSlice): SQL | undefined {
  return slice.cursor === undefined
    ? undefined
    : comparisons[slice.cursor.comparison](idColumn, sql.placeholder("cursor"));
}

export function sliceOrder(idColumn: AnyPgColumn, slice: KeysetSlice): SQL {
  return slice.order === "asc" ? asc(idColumn) : desc(idColumn);
}

/** The number of rows matching a query's conditions, selected alongside each row (window functions run before LIMIT). */
export function matchingCount(): SQL<number> {
  return sql<number>`count(*) over ()`.mapWith(Number);
}

/**
 * Keyset pagination: a page is "ids greater (or smaller) than the cursor", so pages never skip or
 * repeat a row when rows are added or removed between requests, and cost the same at any depth.
 */
export async function fetchKeysetPage<T>(query: KeysetQuery<T>): Promise<KeysetPage<T>> {
  const { request } = query;
  const forward = request.direction === "forward";
  const cursorId = request.cursorId;
  const [fetched, rowsBehindCursor] = await Promise.all([
    query.selectSlice({
      cursor: cursorId === undefined ? undefined : { comparison: forward ? "after" : "before", id: cursorId },
      order: forward ? "asc" : "desc",
      limit: request.size + 1,
    }),
    cursorId === undefined
      ? Promise.resolve([])
      : query.selectSlice({
          cursor: { comparison: forward ? "atOrBefore" : "atOrAfter", id: cursorId },
          order: "asc",
          limit: 1,
        }),
  ]);
  // The cursor splits the list in two: the rows beyond it and the rows behind it (cursor included).
  const rowsBehind = rowsBehindCursor[0]?.matchingCount ?? 0;
  const totalCount = (fetched[0]?.matchingCount ?? 0) + rowsBehind;
  const hasMoreInDirection = fetched.length > request.size;
  const page = fetched.slice(0, request.size).map((entry) => entry.row);
  const hasRowsBehind = rowsBehind > 0;
  return forward
    ? { rows: page, hasNextPage: hasMoreInDirection, hasPreviousPage: hasRowsBehind, totalCount }
    : { rows: page.reverse(), hasNextPage: hasRowsBehind, hasPreviousPage: hasMoreInDirection, totalCount };
}
