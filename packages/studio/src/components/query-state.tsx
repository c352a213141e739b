import type { ReactNode } from "react";
import { ErrorNotice } from "./error-notice.tsx";

/** What `QueryState` reads of a TanStack query (or of a derived one). */
export interface QueryLike<T> {
  data: T | undefined;
  error: unknown;
}

interface QueryStateProps<T> {
  query: QueryLike<T>;
  /** What is on its way, read as "Loading {loading}…". */
  loading: string;
  /** Whether the answer has nothing to show; `empty` then says what to do next. */
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}

/**
 * The states of a query, the same on every page: its error (above the last answer, which stays
 * when only a refresh failed), a loading line until the first answer, the empty state when the
 * answer holds nothing, else the answer itself.
 */
export function QueryState<T>({ query, loading, isEmpty, empty, children }: QueryStateProps<T>): ReactNode {
  const { data, error } = query;
  let body: ReactNode;
  if (data === undefined) {
    body =
      error === null ? (
        <p className="muted" role="status">
          Loading {loading}…
        </p>
      ) : null;
  } else if (isEmpty?.(data) === true) {
    body = <EmptyState>{empty}</EmptyState>;
  } else {
    body = children(data);
  }
  return (
    <>
      <ErrorNotice error={error} />
      {body}
    </>
  );
}

/** Nothing to show, and what to do about it: a query's empty answer, or an empty part of one. */
export function EmptyState({ children }: { children: ReactNode }): ReactNode {
  return <div className="empty-state">{children}</div>;
}
