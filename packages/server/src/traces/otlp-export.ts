import { type Attributes, type HrTime, SpanKind, SpanStatusCode, TraceFlags } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { spans } from "../db/schema/index.ts";
import type { SpanExport } from "../engine/span-export.ts";
import type { Logger } from "../shared/logger.ts";

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

/**
 * The optional OTLP/HTTP exporter (OTEL_EXPORTER_OTLP_ENDPOINT): the spans stored in the database
 * stay the source of truth; a copy of each finished execution's spans goes to the collector.
 */
export function createOtlpSpanExport(options: { db: Database; endpoint: string; logger: Logger }): SpanExport {
  const exporter = new OTLPTraceExporter({ url: `${options.endpoint}/v1/traces` });
  const resource = resourceFromAttributes({ "service.name": "weft" });
  const pending = new Set<Promise<void>>();
  const send = async (executionId: string) => {
    const rows = await options.db.select().from(spans).where(eq(spans.executionId, executionId));
    if (rows.length === 0) return;
    await new Promise<void>((resolve) =>
      exporter.export(
        rows.map((row) => toReadableSpan(row, resource)),
        (result) => {
          if (result.error !== undefined) {
            options.logger.warn({ err: result.error, executionId }, "exporting spans over OTLP failed");
          }
          resolve();
        },
      ),
    );
  };
  return {
    exportExecution: (executionId) => {
      const sending = send(executionId)
        .catch((error: unknown) => options.logger.warn({ err: error, executionId }, "exporting spans over OTLP failed"))
        .finally(() => pending.delete(sending));
      pending.add(sending);
    },
    shutdown: async () => {
      await Promise.all([...pending]);
      await exporter.shutdown();
    },
  };
}
