import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { spans } from "../../db/schema/index.ts";

/**
 * The one place a span's columns are listed for writing. Every span the platform writes (trigger,
 * execution, attempt and step spans) is inserted through `insertSpans`, either from a query or from
 * a JSON array of `SpanRow`s (`spansFromJson`), and closed through `closeSpan`.
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

/** Ends the spans `where` selects at `now` with `status`. */
export function closeSpan(where: SQL, now: string, status: SpanStatus): SQL {
  return sql`update spans set end_time = ${now}::timestamptz, status_code = ${status.code},
    status_message = ${status.message ?? null} where ${where}`;
}
