/**
 * Keeps the prepared statements of one kind per database handle (they are bound to it). Hot
 * queries are prepared once, so each call skips building the SQL and, on PostgreSQL, planning it.
 */
export function preparedStatementCache<TStatement>(): (
  db: object,
  key: string,
  prepare: () => TStatement,
) => TStatement {
  const byDatabase = new WeakMap<object, Map<string, TStatement>>();
  return (db, key, prepare) => {
    let statements = byDatabase.get(db);
    if (statements === undefined) {
      statements = new Map();
      byDatabase.set(db, statements);
    }
    let statement = statements.get(key);
    if (statement === undefined) {
      statement = prepare();
      statements.set(key, statement);
    }
    return statement;
  };
}
