import { Writable } from "node:stream";
import { createLogger, type Logger } from "@weft/server/internals";
import { captureLines } from "./log-capture.ts";

/** A logger whose lines are kept, parsed, in `lines` (for assertions on what was logged), and in the run's log capture. */
export function capturedLogger(level: "debug" | "info" | "warn" | "error"): {
  logger: Logger;
  lines: Record<string, unknown>[];
} {
  const lines: Record<string, unknown>[] = [];
  const keep = captureLines("captured");
  const destination = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      keep?.(chunk);
      callback();
    },
  });
  return { logger: createLogger({ level, destination }), lines };
}
