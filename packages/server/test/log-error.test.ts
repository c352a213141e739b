import { DrizzleQueryError } from "drizzle-orm/errors";
import { describe, expect, it } from "vitest";
import { serializeError } from "../src/shared/log-error.ts";

/** The shape of an error of the `pg` driver (and PGlite's): SQLSTATE, severity, and data in `detail`. */
function driverError(fields: Record<string, unknown>): Error {
  return Object.assign(new Error(String(fields.message)), { name: "DatabaseError", severity: "ERROR", ...fields });
}

describe("the log's error serializer", () => {
  it("logs a failed query as its SQLSTATE and message, without the query's parameters", () => {
    const cause = driverError({
      message: 'duplicate key value violates unique constraint "accounts_email_unique"',
      code: "23505",
      detail: "Key (email)=(ada@example.com) already exists.",
      table: "accounts",
      constraint: "accounts_email_unique",
    });
    const error = new DrizzleQueryError("insert into accounts (email) values ($1)", ["ada@example.com"], cause);
    const logged = serializeError(error);
    expect(logged).toMatchObject({
      type: "DatabaseError",
      sqlState: "23505",
      message: 'duplicate key value violates unique constraint "accounts_email_unique"',
      table: "accounts",
      constraint: "accounts_email_unique",
    });
    expect(JSON.stringify(logged)).not.toContain("ada@example.com");
  });

  it("cuts the value a data exception quotes", () => {
    const cause = driverError({
      message: 'invalid input syntax for type timestamp with time zone: "0000-01-01 secret"',
      code: "22007",
    });
    const logged = serializeError(new DrizzleQueryError("select $1::timestamptz", ["0000-01-01 secret"], cause));
    expect(logged).toMatchObject({
      sqlState: "22007",
      message: "invalid input syntax for type timestamp with time zone: [value omitted]",
    });
    expect(JSON.stringify(logged)).not.toContain("secret");
  });

  it("keeps the call frames but not the first line of the stack, which repeats the parameters", () => {
    const error = new DrizzleQueryError("select $1", ["hidden-value"], driverError({ message: "boom", code: "XX000" }));
    const logged = serializeError(error) as { stack: string };
    expect(logged.stack).toMatch(/^\s*at /);
    expect(logged.stack).not.toContain("hidden-value");
  });

  it("logs a driver error that was wrapped by another error the same way", () => {
    const driver = Object.assign(driverError({ message: "relation does not exist", code: "42P01" }), {
      query: "select * from t where x = $1",
      params: ["wrapped-secret"],
    });
    const logged = serializeError(new Error("could not start an execution", { cause: driver }));
    expect(logged).toMatchObject({ sqlState: "42P01", message: "relation does not exist" });
    expect(JSON.stringify(logged)).not.toContain("wrapped-secret");
  });

  it("logs every other error as pino does", () => {
    const logged = serializeError(new TypeError("plain failure")) as { type: string; message: string; stack: string };
    expect(logged).toMatchObject({ type: "TypeError", message: "plain failure" });
    expect(logged.stack).toContain("plain failure");
  });
});
