import { and, asc, eq, gte, isNotNull, isNull, lte, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Database } from "../db/database.ts";
import { type ExecutionStatus, executions, spans } from "../db/schema/index.ts";
import {
  fetchSelectTimestampPage,
  type TimestampPage,
  type TimestampPageRequest,
} from "../db/timestamp-cursor-page.ts";
import { statusAmong } from "../engine/execution-state/status-conditions.ts";
import { fail, ok, type ServiceResult } from "../shared/service-result.ts";

export interface SpanNode {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: "trigger" | "execution" | "attempt" | "step" | "token";
  startTime: Date;
  endTime: Date | null;
  attributes: Record<string, string | number | boolean>;
  status: { code: "unset" | "ok" | "error"; message: string | null };
  children: SpanNode[];
}

export interface TraceSummary {
  traceId: string;
  executionId: string | null;
  workflow: string | null;
  executionStatus: ExecutionStatus | null;
  name: string;
  startTime: Date;
  endTime: Date | null;
  durationMs: number | null;
  status: { code: "unset" | "ok" | "error"; message: string | null };
}

export interface ListTracesRequest {
  projectId: string;
  from?: Date | undefined;
  to?: Date | undefined;
  workflow?: string | undefined;
  /** Status of the execution the trace records. */
  status?: ExecutionStatus[] | undefined;
  page: TimestampPageRequest;
}

/** A trace's place in the list: its trigger span's start, and its execution id among traces of one millisecond. */
const traceOrder = { at: spans.startTime, id: spans.executionId };

/**
 * A project's traces, newest first, one per execution that no other started (its root is the
 * trigger span; a child's execution is in its parent's trace), paged by a timestamp cursor.
 */
export async function listTraces(
  db: Database,
  request: ListTracesRequest,
): Promise<TimestampPage<TraceSummary & { executionId: string }>> {
  const executionSpans = alias(spans, "execution_spans");
  const filters: (SQL | undefined)[] = [
    eq(spans.projectId, request.projectId),
    eq(spans.kind, "trigger"),
    // A child workflow's trigger hangs in its parent's trace: the trace is listed once, by its root.
    isNull(spans.parentSpanId),
    // The execution id orders traces of one millisecond; every trigger span has one.
    isNotNull(spans.executionId),
    request.from === undefined ? undefined : gte(spans.startTime, request.from),
    request.to === undefined ? undefined : lte(spans.startTime, request.to),
    request.workflow === undefined ? undefined : eq(spans.workflow, request.workflow),
    request.status === undefined || request.status.length === 0 ? undefined : statusAmong(request.status),
  ];
  const page = await fetchSelectTimestampPage({
    request: request.page,
    order: traceOrder,
    where: and(...filters),
    select: () =>
      db
        .select({
          traceId: spans.traceId,
          executionId: spans.executionId,
          workflow: spans.workflow,
          name: executionSpans.name,
          startTime: spans.startTime,
          endTime: executionSpans.endTime,
          statusCode: executionSpans.statusCode,
          statusMessage: executionSpans.statusMessage,
          executionStatus: executions.status,
        })
        .from(spans)
        .leftJoin(executions, eq(executions.id, spans.executionId))
        .leftJoin(executionSpans, eq(executionSpans.spanId, executions.executionSpanId))
        .$dynamic(),
    // The filters keep only trigger spans with an execution id.
    cursorOf: (row) => ({ at: row.startTime, id: row.executionId ?? "" }),
  });
  return {
    next: page.next,
    rows: page.rows.flatMap(({ executionId, ...row }) =>
      executionId === null
        ? []
        : [
            {
              traceId: row.traceId,
              executionId,
              workflow: row.workflow,
              executionStatus: row.executionStatus,
              name: row.name ?? `trace ${row.traceId}`,
              startTime: row.startTime,
              endTime: row.endTime,
              durationMs: row.endTime === null ? null : row.endTime.getTime() - row.startTime.getTime(),
              status: { code: row.statusCode ?? "unset", message: row.statusMessage },
            },
          ],
    ),
  };
}

/** Every span of a trace, as a tree from its root(s); not_found if the project has no such trace. */
export async function getTrace(
  db: Database,
  request: { projectId: string; traceId: string },
): Promise<ServiceResult<SpanNode[]>> {
  const rows = await db
    .select()
    .from(spans)
    .where(and(eq(spans.traceId, request.traceId), eq(spans.projectId, request.projectId)))
    .orderBy(asc(spans.startTime), asc(spans.spanId));
  if (rows.length === 0) return fail.notFound("trace");
  const nodes = new Map<string, SpanNode>(
    rows.map((row) => [
      row.spanId,
      {
        traceId: row.traceId,
        spanId: row.spanId,
        parentSpanId: row.parentSpanId,
        name: row.name,
        kind: row.kind,
        startTime: row.startTime,
        endTime: row.endTime,
        attributes: row.attributes,
        status: { code: row.statusCode, message: row.statusMessage },
        children: [],
      },
    ]),
  );
  const roots: SpanNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parentSpanId === null ? undefined : nodes.get(node.parentSpanId);
    if (parent === undefined) roots.push(node);
    else parent.children.push(node);
  }
  return ok(roots);
}
