import { defaultPageSize, type PageInfo, type PaginationInput } from "@weft/contract";
import type { KeysetPage, PageRequest } from "../db/keyset-page.ts";
import { badRequest } from "./rpc-errors.ts";

const cursorIdPattern = /^[a-z]+_[0-9a-z]{26}$/;

/** Cursors are opaque to clients; inside, they name the id a page starts after (or ends before). */
export function encodeCursor(id: string): string {
  return Buffer.from(JSON.stringify({ id }), "utf8").toString("base64url");
}

/** The id inside a cursor, or undefined when the string is not a cursor we made. */
export function decodeCursor(cursor: string): string | undefined {
  try {
    const decoded: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (typeof decoded !== "object" || decoded === null || !("id" in decoded)) return undefined;
    const { id } = decoded;
    return typeof id === "string" && cursorIdPattern.test(id) ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Turns a list input's `pagination` (already validated against the contract's page limit) into a
 * page request; a cursor that does not decode is a BAD_REQUEST naming the field.
 */
export function toPageRequest(pagination: PaginationInput | undefined): PageRequest {
  const backward = pagination?.last !== undefined || pagination?.before !== undefined;
  const field = backward ? "before" : "after";
  const cursor = backward ? pagination?.before : pagination?.after;
  const cursorId = cursor === undefined ? undefined : decodeCursor(cursor);
  if (cursor !== undefined && cursorId === undefined) {
    throw badRequest("Input validation failed", [
      { path: ["pagination", field], message: "Not a cursor of this list; use startCursor or endCursor of a page." },
    ]);
  }
  return {
    direction: backward ? "backward" : "forward",
    size: (backward ? pagination?.last : pagination?.first) ?? defaultPageSize,
    cursorId,
  };
}

/** The standard list result `{ pagination, results, totalCount }` of a keyset page. */
export function toPageEnvelope<TRow extends { id: string }, TResult>(
  page: KeysetPage<TRow>,
  toResult: (row: TRow) => TResult,
): { pagination: PageInfo; results: TResult[]; totalCount: number } {
  const first = page.rows[0];
  const last = page.rows[page.rows.length - 1];
  return {
    pagination: {
      hasNextPage: page.hasNextPage,
      hasPreviousPage: page.hasPreviousPage,
      startCursor: first === undefined ? null : encodeCursor(first.id),
      endCursor: last === undefined ? null : encodeCursor(last.id),
    },
    results: page.rows.map(toResult),
    totalCount: page.totalCount,
  };
}
