import { executionIdSchema, isSupportedInstant } from "@weft/contract";
import { and, asc, desc, eq, gte, inArray, lt, lte, or, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/pg-core";
import type { Database } from "../db/database.ts";
import { type ExecutionStatus, executions, spans } from "../db/schema/index.ts";
import { InvalidRequestError, NotFoundError, notFoundMessage } from "../shared/service-errors.ts";

export interface SpanNode {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  kind: "trigger" | "execution" | "attempt" | "step";
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

/**
 * The opaque cursor of trace lists: the start time of the last trace of a page, and its execution
 * id (a ULID) to order traces that started in the same millisecond.
 */
export function encodeTraceCursor(startTime: Date, executionId: string): string {
  return Buffer.from(`${startTime.toISOString()}|${executionId}`, "utf8").toString("base64url");
}

/** Both halves are checked: a forged cursor must not carry into the query what PostgreSQL would refuse. */
function decodeTraceCursor(cursor: string): { startTime: Date; executionId: string } {
  const [time, executionId] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  const startTime = new Date(time ?? "");
  const id = executionIdSchema.safeParse(executionId);
  if (!id.success || !isSupportedInstant(startTime)) {
    throw new InvalidRequestError("the cursor is not one this service handed out", [
      { path: "", message: "Not a cursor of this list; use nextCursor of a page." },
    ]);
  }
  return { startTime, executionId: id.data };
}

export interface ListTracesRequest {
  projectId: string;
  from?: Date | undefined;
  to?: Date | undefined;
  workflow?: string | undefined;
  /** Status of the execution the trace records. */
  status?: ExecutionStatus[] | undefined;
  limit: number;
  /** Newest first: continues after the trace this cursor names. */
  cursor?: string | undefined;
}

/**
 * A project's traces, newest first, one per execution (its root is the trigger span). Paged by a
 * timestamp cursor: (start time, execution id) of the last trace returned.
 */
export async function listTraces(
  db: Database,
  request: ListTracesRequest,
): Promise<{ traces: TraceSummary[]; nextCursor: string | null }> {
  const executionSpans = alias(spans, "execution_spans");
  const after = request.cursor === undefined ? undefined : decodeTraceCursor(request.cursor);
  const filters: (SQL | undefined)[] = [
    eq(spans.projectId, request.projectId),
    eq(spans.kind, "trigger"),
    request.from === undefined ? undefined : gte(spans.startTime, request.from),
    request.to === undefined ? undefined : lte(spans.startTime, request.to),
    request.workflow === undefined ? undefined : eq(spans.workflow, request.workflow),
    request.status === undefined || request.status.length === 0
      ? undefined
      : inArray(executions.status, request.status),
    after === undefined
      ? undefined
      : or(
          lt(spans.startTime, after.startTime),
          and(eq(spans.startTime, after.startTime), lt(spans.executionId, after.executionId)),
        ),
  ];
  const rows = await db
    .select({
      traceId: spans.traceId,
      spanId: spans.spanId,
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
    .where(and(...filters))
    .orderBy(desc(spans.startTime), desc(spans.executionId))
    .limit(request.limit + 1);
  const page = rows.slice(0, request.limit);
  const last = page.at(-1);
  return {
    traces: page.map((row) => ({
      traceId: row.traceId,
      executionId: row.executionId,
      workflow: row.workflow,
      executionStatus: row.executionStatus,
      name: row.name ?? `trace ${row.traceId}`,
      startTime: row.startTime,
      endTime: row.endTime,
      durationMs: row.endTime === null ? null : row.endTime.getTime() - row.startTime.getTime(),
      status: { code: row.statusCode ?? "unset", message: row.statusMessage },
    })),
    nextCursor:
      rows.length > request.limit && last?.executionId != null
        ? encodeTraceCursor(last.startTime, last.executionId)
        : null,
  };
}

/** Every span of a trace, as a tree from its root(s); NotFoundError if the project has no such trace. */
export async function getTrace(db: Database, request: { projectId: string; traceId: string }): Promise<SpanNode[]> {
  const rows = await db
    .select()
    .from(spans)
    .where(and(eq(spans.traceId, request.traceId), eq(spans.projectId, request.projectId)))
    .orderBy(asc(spans.startTime), asc(spans.spanId));
  if (rows.length === 0) throw new NotFoundError(notFoundMessage("trace"));
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
  return roots;
}
