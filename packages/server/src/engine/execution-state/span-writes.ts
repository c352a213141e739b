import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { spans } from "../../db/schema/index.ts";

/**
 * The one place a span's columns are listed for writing. Every span the platform writes (trigger,
 * execution, attempt and step spans) is inserted through `insertSpans`, either from a query or from
 * a JSON array of `SpanRow`s (`spansFromJson`), and closed through `closeSpans`.
 */
const spanColumns = {
  span_id: "text",
  trace_id: "text",
  parent_span_id: "text",
  project_id: "text",
  execution_id: "text",
  workflow: "text",
  name: "text",
  kind: "text",
  start_time: "timestamptz",
  end_time: "timestamptz",
  attributes: "jsonb",
  status_code: "text",
  status_message: "text",
} as const;

type SpanColumn = keyof typeof spanColumns;
type SpanKind = (typeof spans.$inferSelect)["kind"];

/** A span as written: one key per column, timestamps as ISO 8601 text. */
export interface SpanRow extends Record<SpanColumn, unknown> {
  span_id: string;
  trace_id: string;
  parent_span_id: string | null;
  project_id: string;
  execution_id: string;
  workflow: string;
  name: string;
  kind: SpanKind;
  start_time: string;
  end_time: string | null;
  attributes: Record<string, string | number | boolean>;
  status_code: "unset" | "ok" | "error";
  status_message: string | null;
}

export interface SpanStatus {
  code: "ok" | "error";
  message?: string | undefined;
}

const columnNames = Object.keys(spanColumns) as SpanColumn[];
const columnList = sql.raw(columnNames.join(", "));

/** `insert into spans (<every column>) <rows>`; `rows` selects the columns in `spanColumns` order. */
export function insertSpans(rows: SQL): SQL {
  return sql`insert into spans (${columnList}) ${rows}`;
}

/** Selects `SpanRow`s from a JSON array (a parameter or a placeholder), in `spanColumns` order. */
export function spansFromJson(rowsJson: string | SQLWrapper): SQL {
  const definition = sql.raw(columnNames.map((name) => `${name} ${spanColumns[name]}`).join(", "));
  return sql`select ${columnList} from json_to_recordset(${rowsJson}::json) as s(${definition})`;
}

/** Spans to end, as a `text[]` expression of their ids, and the status they end with. */
export interface SpanEnd {
  ids: SQL;
  status: SpanStatus;
}

/**
 * Ends the spans of every `SpanEnd` at `now`, each with its status, in one update: a statement that
 * ends several kinds of span (an attempt's end) pays for one index scan and one write node, not one
 * each. The ids are arrays, not conditions, so that the scan is one `span_id = any(…)` of the key.
 */
export function closeSpans(now: string, ends: readonly [SpanEnd, ...SpanEnd[]]): SQL {
  const [first] = ends;
  const set = (value: (status: SpanStatus) => string | null) =>
    ends.length === 1
      ? sql`${value(first.status)}`
      : sql`case ${sql.join(
          ends.map((end) => sql`when span_id = any(${end.ids}) then ${value(end.status)}`),
          sql` `,
        )} end`;
  return sql`update spans set end_time = ${now}::timestamptz, status_code = ${set((status) => status.code)},
    status_message = ${set((status) => status.message ?? null)}
    where span_id = any(${sql.join(
      ends.map((end) => end.ids),
      sql` || `,
    )})`;
}
