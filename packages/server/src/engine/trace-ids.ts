import { idRandomness } from "../shared/random-pool.ts";

/** A W3C / OpenTelemetry trace id: 16 random bytes as 32 lower-case hex digits. */
export function newTraceId(): string {
  return idRandomness.hex(16);
}

/** An OpenTelemetry span id: 8 random bytes as 16 lower-case hex digits. */
export function newSpanId(): string {
  return idRandomness.hex(8);
}
