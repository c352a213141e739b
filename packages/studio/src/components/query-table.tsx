import type { ReactNode } from "react";
import { DataTable, type DataTableProps } from "./data-table.tsx";
import { type QueryLike, QueryState } from "./query-state.tsx";

interface QueryTableProps<T> extends DataTableProps<T> {
  /** The query the rows come from: its error, and its loading state until the first answer. */
  query: QueryLike<unknown>;
  /** What is on its way, read as "Loading {loading}…". */
  loading: string;
  /** What to do next when there are no rows; without it, no rows is an empty table. */
  empty?: ReactNode;
}

/** The rows of a query as a `DataTable`, in the query's states as `QueryState` shows them. */
export function QueryTable<T>({ query, loading, empty, ...table }: QueryTableProps<T>): ReactNode {
  return (
    <QueryState
      query={query}
      loading={loading}
      {...(empty === undefined ? {} : { isEmpty: () => table.rows.length === 0, empty })}
    >
      {() => <DataTable {...table} />}
    </QueryState>
  );
}
