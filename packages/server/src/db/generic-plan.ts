import { createHash } from "node:crypto";
import { type Query, type SQL, sql } from "drizzle-orm";
import type { Database, Transaction } from "./database.ts";
import { genericPlanMarker } from "./generic-plan-marker.ts";
import { executeNamed, type PreparedSql, renderSql } from "./prepared-sql.ts";

/**
 * Opens a statement that the embedded database plans once and keeps planning once for any values,
 * even where PostgreSQL would plan it again at every execution. Once the engine's tables had grown
 * and been analyzed, PostgreSQL judged the generic plans of the claim, the groups read and the
 * attempt's end costlier than plans made for the values, and planned them at every execution
 * (docs/decisions/0088-generic-plans-for-hot-statements.md). Only for statements whose plan does not depend on their values: statuses
 * written as literals, so a partial index is usable whatever the values. On PostgreSQL it is a comment.
 */
export const genericPlan = sql.raw(`${genericPlanMarker} `);

/**
 * Runs a statement opened by `genericPlan` and returns its rows. On PostgreSQL it is prepared under
 * a name drawn from its text, so each pooled connection parses it once and can keep its plan (the
 * driver sends other statements unnamed, planned at every execution); the statements it serves
 * come in a few shapes each, so the names stay few.
 */
export function genericPlanRows<Row>(db: Database | Transaction, query: SQL): Promise<Row[]> {
  const { rendered, name } = namedByText(query);
  return executeNamed<Row>(db, rendered, name);
}

/**
 * `genericPlanRows` for a statement built in a few shapes, each with `sql.placeholder`s for its
 * values: a shape is built, rendered and named on its first run only, as `preparedSql` does for a
 * statement of one shape. For statements run at every execution, building their text cost about as
 * much as a small statement.
 */
export function genericPlanStatement<Row>(build: () => SQL): PreparedSql<Row> {
  let named: ReturnType<typeof namedByText> | undefined;
  return {
    execute: (db, values) => {
      named ??= namedByText(build());
      return executeNamed<Row>(db, named.rendered, named.name, values);
    },
  };
}

/** The statement opened by `genericPlan`, rendered, and a name drawn from its text. */
function namedByText(query: SQL): { rendered: Query; name: string } {
  const rendered = renderSql(sql`${genericPlan}${query}`);
  return { rendered, name: `generic_${createHash("sha256").update(rendered.sql).digest("hex").slice(0, 24)}` };
}
