import type { Command } from "commander";
import { UsageError } from "./errors.ts";

export interface PageOptions {
  limit?: string;
  after?: string;
}

/** `--limit <n>` and `--after <cursor>` on a list command. */
export function withPageOptions(command: Command, maxPageSize: number): Command {
  return command
    .option("--limit <n>", `how many to show (1-${maxPageSize})`)
    .option("--after <cursor>", "continue after this cursor (printed when there are more)");
}

/** `--limit <n>` as a number, refused unless a whole number from 1 to `maxPageSize`. */
function parseLimit(limit: string | undefined, maxPageSize: number): number | undefined {
  if (limit === undefined) return undefined;
  const size = Number(limit);
  if (!(Number.isInteger(size) && size >= 1 && size <= maxPageSize)) {
    throw new UsageError(`--limit ${limit} is not a whole number from 1 to ${maxPageSize}`);
  }
  return size;
}

export function toPagination(options: PageOptions, maxPageSize: number): { first?: number; after?: string } {
  const first = parseLimit(options.limit, maxPageSize);
  return {
    ...(first === undefined ? {} : { first }),
    ...(options.after === undefined ? {} : { after: options.after }),
  };
}

export interface NewestPageOptions {
  limit?: string;
  before?: string;
}

/** `--limit <n>` and `--before <cursor>` on a list that runs oldest first: by default the newest page. */
export function withNewestPageOptions(command: Command, maxPageSize: number): Command {
  return command
    .option("--limit <n>", `how many of the newest to show (1-${maxPageSize}, default 20)`)
    .option("--before <cursor>", "show older ones, before this cursor (printed when there are more)");
}

export function toNewestPagination(options: NewestPageOptions, maxPageSize: number): { last: number; before?: string } {
  const last = parseLimit(options.limit, maxPageSize) ?? 20;
  return { last: Math.min(last, maxPageSize), ...(options.before === undefined ? {} : { before: options.before }) };
}

export interface CursorPageOptions {
  limit?: string;
  cursor?: string;
}

/** `--limit <n>` and `--cursor <cursor>` on a newest-first list that hands out the next page's cursor. */
export function withCursorPageOptions(command: Command, maxPageSize: number): Command {
  return command
    .option("--limit <n>", `how many (1-${maxPageSize}, default 20)`)
    .option("--cursor <cursor>", "the next page (printed when there are more)");
}

export function toCursorPagination(
  options: CursorPageOptions,
  maxPageSize: number,
): { limit?: number; cursor?: string } {
  const limit = parseLimit(options.limit, maxPageSize);
  return {
    ...(limit === undefined ? {} : { limit }),
    ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
  };
}
