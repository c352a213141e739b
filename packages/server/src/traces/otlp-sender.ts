import { type Attributes, type HrTime, SpanKind, SpanStatusCode, TraceFlags } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import type { spans } from "../db/schema/index.ts";

const statusCodes = { unset: SpanStatusCode.UNSET, ok: SpanStatusCode.OK, error: SpanStatusCode.ERROR } as const;

function hrTime(date: Date): HrTime {
  const ms = date.getTime();
  return [Math.floor(ms / 1000), (ms % 1000) * 1_000_000];
}

function toReadableSpan(row: typeof spans.$inferSelect, resource: ReadableSpan["resource"]): ReadableSpan {
  const end = row.endTime ?? row.startTime;
  const durationMs = end.getTime() - row.startTime.getTime();
  const context = { traceId: row.traceId, spanId: row.spanId, traceFlags: TraceFlags.SAMPLED };
  return {
    name: row.name,
    kind: row.kind === "trigger" ? SpanKind.SERVER : SpanKind.INTERNAL,
    spanContext: () => context,
    ...(row.parentSpanId === null
      ? {}
      : { parentSpanContext: { traceId: row.traceId, spanId: row.parentSpanId, traceFlags: TraceFlags.SAMPLED } }),
    startTime: hrTime(row.startTime),
    endTime: hrTime(end),
    status: {
      code: statusCodes[row.statusCode],
      ...(row.statusMessage === null ? {} : { message: row.statusMessage }),
    },
    attributes: {
      ...(row.attributes as Attributes),
      "weft.project.id": row.projectId,
      "weft.span.kind": row.kind,
    },
    links: [],
    events: [],
    duration: [Math.floor(durationMs / 1000), (durationMs % 1000) * 1_000_000],
    ended: true,
    resource,
    instrumentationScope: { name: "weft" },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}

/** Sends stored spans to a collector over OTLP/HTTP. */
export interface OtlpSpanSender {
  /** Resolves once the collector answered; a failure is the `Error` it resolves with. */
  send(rows: (typeof spans.$inferSelect)[]): Promise<Error | undefined>;
  shutdown(): Promise<void>;
}

export function createOtlpSpanSender(endpoint: string): OtlpSpanSender {
  const exporter = new OTLPTraceExporter({ url: `${endpoint}/v1/traces` });
  const resource = resourceFromAttributes({ "service.name": "weft" });
  return {
    send: (rows) =>
      new Promise((resolve) =>
        exporter.export(
          rows.map((row) => toReadableSpan(row, resource)),
          (result) => resolve(result.error),
        ),
      ),
    shutdown: () => exporter.shutdown(),
  };
}
