import { defaultPageSize, isSupportedInstant, type PageInfo, type PaginationInput } from "@weft/contract";
import { fetchKeysetPage, type KeysetPage, type PageRequest, sliceOfSortedList } from "../db/keyset-page.ts";
import type { TimestampCursor, TimestampPage, TimestampPageRequest } from "../db/timestamp-cursor-page.ts";
import { badRequest } from "./rpc-errors.ts";

/**
 * The two ways a list pages (docs/rpc-namespaces.md), from its input to its result: the standard envelope
 * (`first/after`, `last/before`, `totalCount`, `pagination`) over `fetchKeysetPage`, and the
 * newest-first `{ data, nextCursor }` over `fetchTimestampPage`. Cursors are opaque to clients;
 * one that does not decode is a BAD_REQUEST naming the field and reaches no query.
 */

/** How a list's key travels inside its opaque cursors. */
export interface CursorCodec<TKey> {
  encode(key: TKey): string;
  /** The key inside a cursor, or undefined when the string is not a cursor of this list. */
  decode(cursor: string): TKey | undefined;
}

/** A JSON value as an opaque cursor. */
export function opaqueCursor(value: object): string {
  return Buffer.from(JSON.stringify(value), "utf8").toString("base64url");
}

/** The object inside an opaque cursor, or undefined when it holds none. */
export function openCursor(cursor: string): Record<string, unknown> | undefined {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    return typeof decoded === "object" && decoded !== null && !Array.isArray(decoded)
      ? (decoded as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const cursorIdPattern = /^[a-z]+_[0-9a-z]{26}$/;

/** The cursor of lists ordered by a time-sortable id: it names the id a page starts after (or ends before). */
export const idCursor: CursorCodec<string> = {
  encode: (id) => opaqueCursor({ id }),
  decode: (cursor) => {
    const id = openCursor(cursor)?.id;
    return typeof id === "string" && cursorIdPattern.test(id) ? id : undefined;
  },
};

/** The cursor of a list ordered by a unique string, which the cursor holds under `field`. */
export function stringKeyCursor(field: string): CursorCodec<string> {
  return {
    encode: (key) => opaqueCursor({ [field]: key }),
    decode: (cursor) => {
      const key = openCursor(cursor)?.[field];
      return typeof key === "string" ? key : undefined;
    },
  };
}

/** Turns a list input's `pagination` (already validated against the contract's page limit) into a page request. */
export function toPageRequest(pagination: PaginationInput | undefined): PageRequest<string>;
export function toPageRequest<TKey>(
  pagination: PaginationInput | undefined,
  codec: CursorCodec<TKey>,
): PageRequest<TKey>;
export function toPageRequest<TKey>(
  pagination: PaginationInput | undefined,
  codec?: CursorCodec<TKey>,
): PageRequest<TKey | string> {
  const backward = pagination?.last !== undefined || pagination?.before !== undefined;
  const field = backward ? "before" : "after";
  const cursor = backward ? pagination?.before : pagination?.after;
  const key = cursor === undefined ? undefined : (codec ?? idCursor).decode(cursor);
  if (cursor !== undefined && key === undefined) {
    throw badRequest("Input validation failed", [
      { path: ["pagination", field], message: "Not a cursor of this list; use startCursor or endCursor of a page." },
    ]);
  }
  return {
    direction: backward ? "backward" : "forward",
    size: (backward ? pagination?.last : pagination?.first) ?? defaultPageSize,
    cursor: key,
  };
}

export interface PageEnvelope<TResult> {
  pagination: PageInfo;
  results: TResult[];
  totalCount: number;
}

/** The standard list result `{ pagination, results, totalCount }` of a keyset page. */
export function toPageEnvelope<TRow extends { id: string }, TResult>(
  page: KeysetPage<TRow>,
  toResult: (row: TRow) => TResult,
): PageEnvelope<TResult>;
export function toPageEnvelope<TRow, TResult>(
  page: KeysetPage<TRow>,
  toResult: (row: TRow) => TResult,
  cursorOf: (row: TRow) => string,
): PageEnvelope<TResult>;
export function toPageEnvelope<TRow, TResult>(
  page: KeysetPage<TRow>,
  toResult: (row: TRow) => TResult,
  cursorOf: (row: TRow) => string = (row) => idCursor.encode((row as { id: string }).id),
): PageEnvelope<TResult> {
  const first = page.rows[0];
  const last = page.rows[page.rows.length - 1];
  return {
    pagination: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      ...(first === undefined ? {} : { startCursor: cursorOf(first) }),
      ...(last === undefined ? {} : { endCursor: cursorOf(last) }),
    },
    results: page.rows.map(toResult),
    totalCount: page.totalCount,
  };
}

/**
 * The cursor of newest-first lists: the instant and id of the last row of a page. Both halves are
 * checked, so a forged cursor cannot carry into the query what PostgreSQL would refuse.
 */
export const timestampCursor: CursorCodec<TimestampCursor> = {
  encode: ({ at, id }) => Buffer.from(`${at.toISOString()}|${id}`, "utf8").toString("base64url"),
  decode: (cursor) => {
    const [time, id, ...rest] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
    const at = new Date(time ?? "");
    if (rest.length > 0 || id === undefined || !cursorIdPattern.test(id) || !isSupportedInstant(at)) return undefined;
    return { at, id };
  },
};

/** Turns a newest-first list's `limit` and `cursor` into a page request. */
export function toTimestampPageRequest(input: { limit: number; cursor?: string | undefined }): TimestampPageRequest {
  const after = input.cursor === undefined ? undefined : timestampCursor.decode(input.cursor);
  if (input.cursor !== undefined && after === undefined) {
    throw badRequest("Input validation failed", [
      { path: ["cursor"], message: "Not a cursor of this list; use nextCursor of a page." },
    ]);
  }
  return { limit: input.limit, after };
}

/** The newest-first list result `{ data, nextCursor }`. */
export function toTimestampPageEnvelope<TRow, TResult>(
  page: TimestampPage<TRow>,
  toResult: (row: TRow) => TResult,
): { data: TResult[]; nextCursor?: string } {
  const data = page.rows.map(toResult);
  return page.next === null ? { data } : { data, nextCursor: timestampCursor.encode(page.next) };
}

/**
 * One page of a whole list held in memory and sorted by `order.compare` (a deployment's few hundred
 * definitions), cut with the same keyset rules as a table's, behind the same opaque cursors.
 */
export async function pageOfSortedList<T, TKey>(
  all: readonly T[],
  order: { compare: (row: T, key: TKey) => number; keyOf: (row: T) => TKey; cursor: CursorCodec<TKey> },
  pagination: PaginationInput | undefined,
): Promise<PageEnvelope<T>> {
  const page = await fetchKeysetPage({
    request: toPageRequest(pagination, order.cursor),
    selectSlice: async (slice) => sliceOfSortedList(all, order.compare, slice),
  });
  return toPageEnvelope(
    page,
    (row) => row,
    (row) => order.cursor.encode(order.keyOf(row)),
  );
}

/** Orders by name, in code-unit order (the order a keyset of names compares in). */
export function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
