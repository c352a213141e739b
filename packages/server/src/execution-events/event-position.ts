import { isSupportedInstant } from "@weft/contract";

/**
 * Where an event sits in a stream: when the engine recorded it, its execution, and its index among
 * that execution's events. Events are listed in this order, which only grows as the engine records
 * more, so a cursor (`after`) or an SSE `Last-Event-ID` resumes without missing or repeating one.
 */
export interface EventPosition {
  recordedAt: Date;
  executionId: string;
  ordinal: number;
}

export function comparePositions(a: EventPosition, b: EventPosition): number {
  const byTime = a.recordedAt.getTime() - b.recordedAt.getTime();
  if (byTime !== 0) return byTime;
  if (a.executionId !== b.executionId) return a.executionId < b.executionId ? -1 : 1;
  return a.ordinal - b.ordinal;
}

const executionIdPattern = /^exe_[0-9a-z]{26}$/;

/** Before every event: where a stream with no cursor starts. */
export const streamStart: EventPosition = { recordedAt: new Date(0), executionId: "", ordinal: -1 };

/** Just before every event recorded from `instant` on: where a live stream without `Last-Event-ID` starts. */
export function positionAt(instant: Date): EventPosition {
  return { recordedAt: instant, executionId: "", ordinal: -1 };
}

export function encodePosition(position: EventPosition): string {
  return Buffer.from(
    `${position.recordedAt.toISOString()}|${position.executionId}|${position.ordinal}`,
    "utf8",
  ).toString("base64url");
}

/** The position inside a cursor, or undefined when the string is not one of ours. */
export function decodePosition(cursor: string): EventPosition | undefined {
  const [time, executionId, ordinalText, ...rest] = Buffer.from(cursor, "base64url").toString("utf8").split("|");
  const recordedAt = new Date(time ?? "");
  const ordinal = Number(ordinalText);
  if (rest.length > 0 || executionId === undefined || !isSupportedInstant(recordedAt)) return undefined;
  if (executionId !== "" && !executionIdPattern.test(executionId)) return undefined;
  if (!Number.isSafeInteger(ordinal) || ordinal < -1) return undefined;
  return { recordedAt, executionId, ordinal };
}
