import { type Placeholder, type SQL, sql } from "drizzle-orm";
import { insertSpans, type SpanRow } from "./span-writes.ts";

/**
 * The execution an attempt span belongs to, as the span needs it. The claim opens attempt spans in
 * SQL, for the rows it leases, and a local start in TypeScript, for the row ingress writes already
 * leased: both are written here, side by side, so that a trace reads the same whichever way the
 * attempt began.
 */
export interface AttemptSpanSource {
  id: string;
  traceId: string;
  executionSpanId: string;
  projectId: string;
  workflow: string;
  attempt: number;
}

/**
 * The span of `execution`'s attempt started by a local start, which only takes an execution that
 * never ran: so never a resumed one.
 */
export function attemptSpanRow(execution: AttemptSpanSource, spanId: string, workerId: string, now: Date): SpanRow {
  return {
    span_id: spanId,
    trace_id: execution.traceId,
    parent_span_id: execution.executionSpanId,
    project_id: execution.projectId,
    execution_id: execution.id,
    workflow: execution.workflow,
    name: `attempt ${execution.attempt}`,
    kind: "attempt",
    start_time: now.toISOString(),
    end_time: null,
    attributes: {
      "weft.execution.attempt": execution.attempt,
      "weft.worker.id": workerId,
      "weft.resumed": false,
    },
    status_code: "unset",
    status_message: null,
  };
}

/**
 * The insert of the attempt spans of the rows of `claimed`, a CTE with the columns
 * `attempt_span_id`, `trace_id`, `execution_span_id`, `project_id`, `id`, `workflow`, `attempt`
 * and `resumed`: the claim leases and opens its attempts in one statement. `now` is the claim's
 * instant as ISO text.
 */
export function insertAttemptSpans(claimed: SQL, workerId: string | Placeholder, now: string | Placeholder): SQL {
  return insertSpans(sql`select attempt_span_id, trace_id, execution_span_id, project_id, id, workflow,
      'attempt ' || attempt || case when resumed then ' (resumed)' else '' end, 'attempt', ${now}::timestamptz, null,
      jsonb_build_object('weft.execution.attempt', attempt, 'weft.worker.id', ${workerId}::text,
        'weft.resumed', resumed),
      'unset', null
    from ${claimed}`);
}
