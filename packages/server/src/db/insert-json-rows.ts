import { getTableColumns, getTableName, type SQL, sql } from "drizzle-orm";
import type { PgTable } from "drizzle-orm/pg-core";

/**
 * An INSERT of many rows that travel as one JSON parameter, expanded by PostgreSQL's
 * `json_populate_recordset`. Building a multi-row insert through the query builder costs
 * JavaScript time per row and per column, and so does each bound parameter on the embedded
 * database; here the rows cost one `JSON.stringify` and PostgreSQL's native JSON parser.
 * Only the columns the first row names are inserted (the others take their defaults); every row
 * must name the same columns. Dates become ISO 8601 text, which timestamp columns accept.
 */
export function insertJsonRows<T extends PgTable>(table: T, rows: readonly T["$inferInsert"][]): SQL {
  const first = rows[0];
  if (first === undefined) throw new Error("insertJsonRows needs at least one row");
  const columns = Object.entries(getTableColumns(table)).filter(([key]) => key in first);
  const names = sql.join(
    columns.map(([, column]) => sql.identifier(column.name)),
    sql`, `,
  );
  const json = JSON.stringify(
    rows.map((row) => {
      const record: Record<string, unknown> = {};
      for (const [key, column] of columns) record[column.name] = (row as Record<string, unknown>)[key];
      return record;
    }),
  );
  const tableName = sql.identifier(getTableName(table));
  return sql`insert into ${tableName} (${names}) select ${names} from json_populate_recordset(null::${tableName}, ${json}::json)`;
}
