import type { Query, SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import type { Database, Transaction } from "./database.ts";

/** A hand-written statement rendered once; values fill its `sql.placeholder`s. */
export interface PreparedSql<Row> {
  /** Runs the statement on the database, or inside a transaction on that transaction's connection. */
  execute(db: Database | Transaction, values: Record<string, unknown>): Promise<Row[]>;
}

const dialect = new PgDialect();

/** Renders a statement to its text and values, as the driver will send it. */
export function renderSql(query: SQL): Query {
  return dialect.sqlToQuery(query);
}

/**
 * Runs a rendered statement as a prepared statement named `name` (on PostgreSQL, parsed once per
 * pooled connection); `values` fill its `sql.placeholder`s.
 */
export async function executeNamed<Row>(
  db: Database | Transaction,
  query: Query,
  name: string,
  values?: Record<string, unknown>,
): Promise<Row[]> {
  const statement = db._.session.prepareQuery(query, undefined, name, false);
  return ((await statement.execute(values)) as { rows: Row[] }).rows;
}

/**
 * Prepares a raw statement (CTEs and all, which the query builder cannot express) under `name`, as
 * the builder's `.prepare(name)` does: the SQL is rendered on first use only, and on PostgreSQL each
 * pooled connection parses and plans it once (the embedded database's client does that for every
 * statement text; see `embedded-statement-cache.ts`). For statements issued at every step or
 * submission, building and planning was most of their cost. Unlike `.prepare()`, the statement is
 * not bound to one database handle, so it also runs inside transactions.
 */
export function preparedSql<Row>(name: string, build: () => SQL): PreparedSql<Row> {
  let query: Query | undefined;
  return {
    execute: (db, values) => {
      query ??= renderSql(build());
      return executeNamed<Row>(db, query, name, values);
    },
  };
}
