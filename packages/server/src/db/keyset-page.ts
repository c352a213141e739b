import {
  and,
  asc,
  desc,
  eq,
  getTableColumns,
  gt,
  gte,
  type InferSelectModel,
  lt,
  lte,
  type SQL,
  sql,
} from "drizzle-orm";
import type { AnyPgColumn, PgSelect, PgTable } from "drizzle-orm/pg-core";
import type { Database } from "./database.ts";

/**
 * One page of a list in a total order of unique keys (a time-sortable id, or a resource's kind
 * and name): `forward` reads `size` rows after `cursor` (or from the start), `backward` reads
 * `size` rows before it (or up to the end).
 */
export interface PageRequest<TKey = string> {
  direction: "forward" | "backward";
  size: number;
  cursor: TKey | undefined;
}

export interface KeysetPage<T> {
  /** In ascending key order, whichever the direction. */
  rows: T[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  totalCount: number;
}

/** Where a slice starts relative to the cursor key. */
export type CursorComparison = "after" | "before" | "atOrBefore" | "atOrAfter";

/**
 * One query's worth of a keyset list: the rows beyond (or behind) a cursor, in key order, at most
 * `limit`. Few shapes exist, so a list can keep one prepared statement per shape (`sliceKey`).
 */
export interface KeysetSlice<TKey = string> {
  cursor: { comparison: CursorComparison; key: TKey } | undefined;
  order: "asc" | "desc";
  limit: number;
}

export interface KeysetQuery<T, TKey = string> {
  request: PageRequest<TKey>;
  /**
   * The rows of the slice, each with how many rows match the slice's conditions before its limit
   * (select `matchingCount` for it), so a page and its total cost one query.
   */
  selectSlice(slice: KeysetSlice<TKey>): Promise<{ row: T; matchingCount: number }[]>;
}

/** A name for the shape of a slice (not its values), e.g. to name its prepared statement. */
export function sliceKey(slice: KeysetSlice): string {
  return `${slice.cursor?.comparison ?? "all"}_${slice.order}`;
}

const comparisons = { after: gt, before: lt, atOrBefore: lte, atOrAfter: gte } as const;

/**
 * The cursor condition of a slice on its id column: with the cursor id bound as a value, or as the
 * placeholder `cursor` for a list kept as one prepared statement per slice shape.
 */
export function cursorCondition(
  idColumn: AnyPgColumn,
  slice: KeysetSlice,
  bind: "value" | "placeholder" = "value",
): SQL | undefined {
  if (slice.cursor === undefined) return undefined;
  const cursor = bind === "value" ? slice.cursor.key : sql.placeholder("cursor");
  return comparisons[slice.cursor.comparison](idColumn, cursor);
}

export function sliceOrder(idColumn: AnyPgColumn, slice: KeysetSlice): SQL {
  return slice.order === "asc" ? asc(idColumn) : desc(idColumn);
}

/** The number of rows matching a query's conditions, selected alongside each row (window functions run before LIMIT). */
export function matchingCount(): SQL<number> {
  return sql<number>`count(*) over ()`.mapWith(Number);
}

const inMemoryComparisons = {
  after: (order: number) => order > 0,
  before: (order: number) => order < 0,
  atOrBefore: (order: number) => order <= 0,
  atOrAfter: (order: number) => order >= 0,
} as const;

/**
 * The slice of a list held in memory and sorted by `compare` (a deployment's few hundred
 * resources), so that such a list pages exactly like a table.
 */
export function sliceOfSortedList<T, TKey>(
  all: readonly T[],
  compare: (row: T, key: TKey) => number,
  slice: KeysetSlice<TKey>,
): { row: T; matchingCount: number }[] {
  const { cursor } = slice;
  const matching =
    cursor === undefined
      ? [...all]
      : all.filter((row) => inMemoryComparisons[cursor.comparison](compare(row, cursor.key)));
  if (slice.order === "desc") matching.reverse();
  return matching.slice(0, slice.limit).map((row) => ({ row, matchingCount: matching.length }));
}

/** The two slices of a page: the rows beyond the cursor (one more than a page) and the first row behind it. */
function pageSlices<TKey>(request: PageRequest<TKey>): {
  beyond: KeysetSlice<TKey>;
  behind: KeysetSlice<TKey> | undefined;
} {
  const forward = request.direction === "forward";
  const key = request.cursor;
  return {
    beyond: {
      cursor: key === undefined ? undefined : { comparison: forward ? "after" : "before", key },
      order: forward ? "asc" : "desc",
      limit: request.size + 1,
    },
    behind:
      key === undefined
        ? undefined
        : { cursor: { comparison: forward ? "atOrBefore" : "atOrAfter", key }, order: "asc", limit: 1 },
  };
}

function pageOfSlices<T>(
  request: PageRequest<unknown>,
  fetched: T[],
  hasRowsBehind: boolean,
  totalCount: number,
): KeysetPage<T> {
  const hasMoreInDirection = fetched.length > request.size;
  const page = fetched.slice(0, request.size);
  return request.direction === "forward"
    ? { rows: page, hasNextPage: hasMoreInDirection, hasPreviousPage: hasRowsBehind, totalCount }
    : { rows: page.reverse(), hasNextPage: hasRowsBehind, hasPreviousPage: hasMoreInDirection, totalCount };
}

/**
 * Keyset pagination: a page is "keys greater (or smaller) than the cursor", so pages never skip or
 * repeat a row when rows are added or removed between requests, and cost the same at any depth.
 */
export async function fetchKeysetPage<T, TKey = string>(query: KeysetQuery<T, TKey>): Promise<KeysetPage<T>> {
  const { beyond, behind } = pageSlices(query.request);
  const [fetched, rowsBehindCursor] = await Promise.all([
    query.selectSlice(beyond),
    behind === undefined ? Promise.resolve([]) : query.selectSlice(behind),
  ]);
  // The cursor splits the list in two: the rows beyond it and the rows behind it (cursor included).
  const rowsBehind = rowsBehindCursor[0]?.matchingCount ?? 0;
  const totalCount = (fetched[0]?.matchingCount ?? 0) + rowsBehind;
  return pageOfSlices(
    query.request,
    fetched.map((entry) => entry.row),
    rowsBehind > 0,
    totalCount,
  );
}

/** The `row` of what a keyset list's query selects. */
type SelectedRow<TSelect> = Awaited<TSelect> extends { row: infer TRow }[] ? TRow : never;

/**
 * One page of a query's rows in the order of a unique key column, under `where`. `select` begins
 * the query afresh for each slice: its `row` and `matchingCount`, its table and joins, made
 * `$dynamic()`; the slice's cursor, order and limit are added here.
 */
export function fetchSelectKeysetPage<TSelect extends PgSelect>(query: {
  request: PageRequest;
  key: AnyPgColumn;
  where: SQL | undefined;
  select: () => TSelect;
}): Promise<KeysetPage<SelectedRow<TSelect>>> {
  return fetchKeysetPage({
    request: query.request,
    selectSlice: async (slice) => {
      const rows = await query
        .select()
        .where(and(query.where, cursorCondition(query.key, slice)))
        .orderBy(sliceOrder(query.key, slice))
        .limit(slice.limit);
      return rows as { row: SelectedRow<TSelect>; matchingCount: number }[];
    },
  });
}

/**
 * One page of a table's whole rows in the order of a unique key column, under `where`: the list of
 * a project's or workspace's things (schedules, integrations, policies), which needs no join.
 */
export function fetchTableKeysetPage<TTable extends PgTable>(
  db: Database,
  query: { table: TTable; key: AnyPgColumn; where: SQL | undefined; request: PageRequest },
): Promise<KeysetPage<InferSelectModel<TTable>>> {
  return fetchSelectKeysetPage({
    ...query,
    select: () =>
      db
        .select({ row: getTableColumns(query.table), matchingCount: matchingCount() })
        .from(query.table as PgTable)
        .$dynamic(),
  }) as Promise<KeysetPage<InferSelectModel<TTable>>>;
}

/** A page of one project's rows. */
export interface ProjectRowsRequest {
  projectId: string;
  page: PageRequest;
}

/** One page of a project's rows of `table`, by their name, which is unique within a project. */
export function fetchProjectRowsByName<TTable extends PgTable & { projectId: AnyPgColumn; name: AnyPgColumn }>(
  db: Database,
  table: TTable,
  request: ProjectRowsRequest,
): Promise<KeysetPage<InferSelectModel<TTable>>> {
  return fetchTableKeysetPage(db, {
    table,
    key: table.name,
    where: eq(table.projectId, request.projectId),
    request: request.page,
  });
}

export interface CappedCountKeysetQuery<T, TKey = string> {
  request: PageRequest<TKey>;
  /** The rows of the slice, without a count. */
  selectSlice(slice: KeysetSlice<TKey>): Promise<T[]>;
  /** How many rows match the list's conditions, counting no further than `limit`. */
  countMatching(limit: number): Promise<number>;
  countCap: number;
}

export interface CappedCountKeysetPage<T> extends KeysetPage<T> {
  /** More than `countCap` rows match; `totalCount` is the cap. */
  totalCountIsLowerBound: boolean;
}

/**
 * Keyset pagination of a list that grows without bound: an exact total would read every matching
 * row for each page (a window over the whole history runs before the LIMIT), so the count stops
 * one past the cap and the page says when it did.
 */
export async function fetchCappedCountKeysetPage<T, TKey = string>(
  query: CappedCountKeysetQuery<T, TKey>,
): Promise<CappedCountKeysetPage<T>> {
  const { beyond, behind } = pageSlices(query.request);
  const [fetched, rowsBehindCursor, counted] = await Promise.all([
    query.selectSlice(beyond),
    behind === undefined ? Promise.resolve([]) : query.selectSlice(behind),
    query.countMatching(query.countCap + 1),
  ]);
  const totalCountIsLowerBound = counted > query.countCap;
  const totalCount = Math.min(counted, query.countCap);
  return { ...pageOfSlices(query.request, fetched, rowsBehindCursor.length > 0, totalCount), totalCountIsLowerBound };
}
