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

export function toPagination(options: PageOptions, maxPageSize: number): { first?: number; after?: string } {
  const first = options.limit === undefined ? undefined : Number(options.limit);
  if (first !== undefined && !(Number.isInteger(first) && first >= 1 && first <= maxPageSize)) {
    throw new UsageError(`--limit ${options.limit} is not a whole number from 1 to ${maxPageSize}`);
  }
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
  const last = options.limit === undefined ? 20 : Number(options.limit);
  if (!(Number.isInteger(last) && last >= 1 && last <= maxPageSize)) {
    throw new UsageError(`--limit ${options.limit} is not a whole number from 1 to ${maxPageSize}`);
  }
  return { last: Math.min(last, maxPageSize), ...(options.before === undefined ? {} : { before: options.before }) };
}
