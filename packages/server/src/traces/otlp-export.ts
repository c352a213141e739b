import { eq } from "drizzle-orm";
import type { Database } from "../db/database.ts";
import { spans } from "../db/schema/index.ts";
import type { SpanExport } from "../engine/span-export.ts";
import type { Logger } from "../shared/logger.ts";
import type { OtlpSpanSender } from "./otlp-sender.ts";

/**
 * The optional OTLP/HTTP exporter (OTEL_EXPORTER_OTLP_ENDPOINT): the spans stored in the database
 * stay the source of truth; a copy of each finished execution's spans goes to the collector. The
 * OpenTelemetry packages are loaded with the first export: a platform without a collector never
 * loads them, and one with a collector starts without waiting for them.
 */
export function createOtlpSpanExport(options: { db: Database; endpoint: string; logger: Logger }): SpanExport {
  let sender: Promise<OtlpSpanSender> | undefined;
  const senderOf = () =>
    (sender ??= import("./otlp-sender.ts").then(({ createOtlpSpanSender }) => createOtlpSpanSender(options.endpoint)));
  const pending = new Set<Promise<void>>();
  const send = async (executionId: string) => {
    const rows = await options.db.select().from(spans).where(eq(spans.executionId, executionId));
    if (rows.length === 0) return;
    const error = await (await senderOf()).send(rows);
    if (error !== undefined) options.logger.warn({ err: error, executionId }, "exporting spans over OTLP failed");
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
      await (await sender)?.shutdown();
    },
  };
}
