import { randomBytes } from "node:crypto";

/** A W3C / OpenTelemetry trace id: 16 random bytes as 32 lower-case hex digits. */
export function newTraceId(): string {
  return randomBytes(16).toString("hex");
}

/** An OpenTelemetry span id: 8 random bytes as 16 lower-case hex digits. */
export function newSpanId(): string {
  return randomBytes(8).toString("hex");
}
