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

/** Spans to end: built by `spanEnds`, ended by `closeSpans`. */
export interface SpanEnds {
  query: SQL;
}

/** The status columns of `spanEnds` for a status known in advance. */
export function endedWith(status: SpanStatus): { code: SQL; message: SQL } {
  return { code: sql`${status.code}::text`, message: sql`${status.message ?? null}::text` };
}

/** The spans whose ids `from` yields, to end at `endTime` with the status `code` and `message` (expressions over `from`). */
export function spanEnds(from: SQL, ended: { spanId: SQL; endTime: SQL; code: SQL; message: SQL }): SpanEnds {
  return { query: sql`select ${ended.spanId}, ${ended.endTime}, ${ended.code}, ${ended.message} from ${from}` };
}

/**
 * Ends every span of every `SpanEnds`, in one update: a statement that ends several kinds of span
 * for several executions (a batch of attempts' ends) pays for one write node.
 */
export function closeSpans(ends: readonly [SpanEnds, ...SpanEnds[]]): SQL {
  return sql`update spans set end_time = ended.end_time, status_code = ended.status_code,
      status_message = ended.status_message
    from (${sql.join(
      ends.map((end) => end.query),
      sql` union all `,
    )}) as ended (span_id, end_time, status_code, status_message)
    where spans.span_id = ended.span_id`;
}
