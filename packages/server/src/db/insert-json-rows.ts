import { getTableColumns, getTableName, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";

/**
 * Many rows inserted as one JSON parameter, expanded by PostgreSQL's `json_populate_recordset`.
 * Building a multi-row insert through the query builder costs JavaScript time per row and per
 * column, and so does each bound parameter on the embedded database; here the rows cost one
 * `JSON.stringify` and PostgreSQL's native JSON parser, and the statement can be prepared once.
 * The columns are fixed when the insert is made (the others take their defaults); dates become
 * ISO 8601 text, which timestamp columns accept.
 */
export interface JsonRowsInsert<Row> {
  /** `insert into <table> (<columns>) select … from json_populate_recordset(…, <rowsJson>::json)`. */
  statement(rowsJson: SQLWrapper): SQL;
  /** The rows as the JSON array the statement reads. */
  json(rows: readonly Row[]): string;
}

export function jsonRowsInsert<T extends PgTable>(
  table: T,
  keys: readonly (keyof T["$inferInsert"] & string)[],
): JsonRowsInsert<T["$inferInsert"]> {
  const byKey: Record<string, PgColumn> = getTableColumns(table);
  const columns = keys.map((key): [string, string] => {
    const column = byKey[key];
    if (column === undefined) throw new Error(`${getTableName(table)} has no column for "${key}"`);
    return [key, column.name];
  });
  const names = sql.join(
    columns.map(([, name]) => sql.identifier(name)),
    sql`, `,
  );
  const tableName = sql.identifier(getTableName(table));
  return {
    statement: (rowsJson) =>
      sql`insert into ${tableName} (${names}) select ${names} from json_populate_recordset(null::${tableName}, ${rowsJson}::json)`,
    json: (rows) =>
      JSON.stringify(
        rows.map((row) => {
          const record: Record<string, unknown> = {};
          for (const [key, name] of columns) record[name] = (row as Record<string, unknown>)[key];
          return record;
        }),
      ),
  };
}
