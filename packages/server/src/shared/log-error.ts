import { stdSerializers } from "pino";

/** What the log keeps of an error that came from the database. */
export interface LoggedDatabaseError {
  type: string;
  /** SQLSTATE, e.g. `23505` (not `code`, which the logger redacts as a secret wherever it appears). */
  sqlState: string | undefined;
  message: string;
  table?: string;
  column?: string;
  constraint?: string;
  /** Call frames only: the first line of a stack repeats the message, parameters included. */
  stack: string;
}

const sqlState = /^[0-9A-Z]{5}$/;

/** Errors of the drivers (pg, PGlite) carry a SQLSTATE `code` and a `severity`; drizzle's wrapper carries `query` and `params`. */
function isDatabaseError(error: object): boolean {
  if ("params" in error && "query" in error) return true;
  return "code" in error && typeof error.code === "string" && sqlState.test(error.code) && "severity" in error;
}

function causesOf(error: unknown): object[] {
  const chain: object[] = [];
  for (let current = error; typeof current === "object" && current !== null && chain.length < 10; ) {
    if (chain.includes(current)) break;
    chain.push(current);
    current = "cause" in current ? current.cause : undefined;
  }
  return chain;
}

function stringField(error: object, key: string): string | undefined {
  const value = (error as Record<string, unknown>)[key];
  return typeof value === "string" ? value : undefined;
}

/**
 * Data exceptions (SQLSTATE class 22) quote the offending value in their message, e.g.
 * `invalid input syntax for type uuid: "…"`; the value is the caller's input, so it is cut off.
 */
function messageWithoutValues(code: string | undefined, message: string): string {
  if (code?.startsWith("22") !== true) return message;
  const quoted = message.indexOf(': "');
  return quoted === -1 ? message : `${message.slice(0, quoted)}: [value omitted]`;
}

function callFrames(stack: string | undefined): string {
  return (stack ?? "")
    .split("\n")
    .filter((line) => line.trimStart().startsWith("at "))
    .join("\n");
}

/**
 * pino's `err` serializer for every logger of the platform. A database error carries the SQL
 * with its parameters (in drizzle's message, in `params`, in the driver's `detail` and `where`),
 * and parameters are request data: submission bodies, emails, tokens' hashes. Such an error is
 * logged as its SQLSTATE, the driver's message with no value in it, and the names of the table,
 * column and constraint; every other error as pino logs it.
 */
export function serializeError(error: unknown): unknown {
  const chain = causesOf(error);
  if (!chain.some(isDatabaseError)) return stdSerializers.err(error as Error);
  const driver = chain.find((link) => sqlState.test(stringField(link, "code") ?? ""));
  const code = driver === undefined ? undefined : stringField(driver, "code");
  const driverMessage = driver === undefined ? "query failed" : (stringField(driver, "message") ?? "");
  const table = driver === undefined ? undefined : stringField(driver, "table");
  const column = driver === undefined ? undefined : stringField(driver, "column");
  const constraint = driver === undefined ? undefined : stringField(driver, "constraint");
  return {
    type: (driver === undefined ? undefined : stringField(driver, "name")) ?? "DatabaseError",
    sqlState: code,
    message: messageWithoutValues(code, driverMessage),
    ...(table === undefined ? {} : { table }),
    ...(column === undefined ? {} : { column }),
    ...(constraint === undefined ? {} : { constraint }),
    stack: callFrames(stringField(chain[0] ?? {}, "stack")),
  } satisfies LoggedDatabaseError;
}
