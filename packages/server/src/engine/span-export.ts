/**
 * Where the spans of each execution that reached a final state are copied: the OpenTelemetry
 * exporter (`traces/otlp-export.ts`), when a collector is configured.
 */
export interface SpanExport {
  /** Exports every span of the execution (called once it reached a final state); never throws. */
  exportExecution(executionId: string): void;
  shutdown(): Promise<void>;
}
