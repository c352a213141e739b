import type { PageInfo } from "@weft/contract";
import type { Output } from "./output.ts";

/** A page of a list the API reads by `first/after` or `last/before`. */
export interface ConnectionPage<T> {
  results: T[];
  pagination: PageInfo;
}

/** A page of a newest-first list the API continues with a cursor (left out on the last page). */
export interface CursorPage<T> {
  data: T[];
  nextCursor?: string | undefined;
}

/** How a list shows as a table: its header, a row an item, and what an empty list prints. */
export interface ListTable<T> {
  headers: string[];
  row: (item: T) => string[];
  empty: string;
}

function printTable<T>(output: Output, page: object, items: T[], table: ListTable<T>, next: string | undefined): void {
  output.result(page, () => {
    output.table(
      table.headers,
      items.map((item) => table.row(item)),
      table.empty,
    );
    if (next !== undefined) output.line(output.style("dim", next));
  });
}

/** The option that shows the page after this one, when there is one. */
function nextPageHint(page: ConnectionPage<unknown> | CursorPage<unknown>): string | undefined {
  if ("data" in page) return page.nextCursor === undefined ? undefined : `more: add --cursor ${page.nextCursor}`;
  const { hasNextPage, endCursor } = page.pagination;
  return hasNextPage && endCursor !== undefined ? `more: add --after ${endCursor}` : undefined;
}

/** A page of a list as JSON, or as a table followed by the option that shows the next page. */
export function printPage<T>(output: Output, page: ConnectionPage<T> | CursorPage<T>, table: ListTable<T>): void {
  printTable(output, page, "data" in page ? page.data : page.results, table, nextPageHint(page));
}

/** The option that shows the entries older than a page of an oldest-first list, when there are any. */
function olderPageHint(page: ConnectionPage<unknown>): string | undefined {
  const { hasPreviousPage, startCursor } = page.pagination;
  return hasPreviousPage && startCursor !== undefined ? `older: add --before ${startCursor}` : undefined;
}

/** `printPage` for a list shown newest last, whose earlier page holds the older entries. */
export function printNewestPage<T>(output: Output, page: ConnectionPage<T>, table: ListTable<T>): void {
  printTable(output, page, page.results, table, olderPageHint(page));
}

/**
 * The last page of an oldest-first list shown newest first, in the table and in the JSON page's
 * `results`; its `pagination` stays the API's, so `startCursor` with `--before` reads the older ones.
 */
export function printNewestFirstPage<T>(output: Output, page: ConnectionPage<T>, table: ListTable<T>): void {
  const newestFirst = { ...page, results: page.results.toReversed() };
  printTable(output, newestFirst, newestFirst.results, table, olderPageHint(page));
}
