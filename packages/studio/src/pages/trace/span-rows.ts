import type { SpanOutput } from "@weft/contract";

export interface SpanRow {
  span: SpanOutput;
  depth: number;
  /** Where the span starts and how long it lasts, as fractions of the whole trace. */
  offset: number;
  width: number;
  durationMs: number | null;
}

/** The narrowest bar drawn, as a fraction of the trace: an instant span stays visible. */
const narrowest = 0.002;

/**
 * The spans of a trace in depth-first order, each placed on the trace's one time line. A child
 * that lies within its parent in time is drawn within its parent's bar: one widened to be seen is
 * clipped to it, so a step is never drawn outside its attempt.
 */
export function spanRows(roots: SpanOutput[], now: number): SpanRow[] {
  const flat: { span: SpanOutput; depth: number; parent: number | undefined }[] = [];
  const visit = (span: SpanOutput, depth: number, parent: number | undefined): void => {
    const index = flat.length;
    flat.push({ span, depth, parent });
    for (const child of span.children) visit(child, depth + 1, index);
  };
  for (const root of roots) visit(root, 0, undefined);
  if (flat.length === 0) return [];
  const start = Math.min(...flat.map(({ span }) => Date.parse(span.startTime)));
  const endOf = (span: SpanOutput): number => (span.endTime === null ? now : Date.parse(span.endTime));
  const end = Math.max(...flat.map(({ span }) => endOf(span)));
  const total = Math.max(end - start, 1);
  const rows: SpanRow[] = [];
  for (const { span, depth, parent } of flat) {
    const from = Date.parse(span.startTime);
    let offset = (from - start) / total;
    let right = offset + Math.max((endOf(span) - from) / total, narrowest);
    const outerSpan = parent === undefined ? undefined : flat[parent]?.span;
    // Only a parent that lasts across its child holds it (an attempt its steps); a trigger is an
    // instant that the execution follows, and its child is drawn where it is.
    const contains =
      outerSpan !== undefined && Date.parse(outerSpan.startTime) <= from && endOf(span) <= endOf(outerSpan);
    const outer = parent === undefined || !contains ? undefined : rows[parent];
    if (outer !== undefined) {
      offset = Math.min(Math.max(offset, outer.offset), outer.offset + outer.width);
      right = Math.min(Math.max(right, offset), outer.offset + outer.width);
    }
    right = Math.min(right, 1);
    rows.push({
      span,
      depth,
      offset,
      width: right - offset,
      durationMs: span.endTime === null ? null : Date.parse(span.endTime) - from,
    });
  }
  return rows;
}

/** The trace's length in milliseconds, from its first span's start to its last end. */
export function traceLengthMs(roots: SpanOutput[], now: number): number {
  const all: SpanOutput[] = [];
  const visit = (span: SpanOutput): void => {
    all.push(span);
    for (const child of span.children) visit(child);
  };
  for (const root of roots) visit(root);
  if (all.length === 0) return 0;
  const start = Math.min(...all.map((span) => Date.parse(span.startTime)));
  const end = Math.max(...all.map((span) => (span.endTime === null ? now : Date.parse(span.endTime))));
  return Math.max(end - start, 1);
}

/** Where the time axis is labelled: five ticks, from the start to the end of the trace. */
export function axisTicks(lengthMs: number): { fraction: number; ms: number }[] {
  return [0, 0.25, 0.5, 0.75, 1].map((fraction) => ({ fraction, ms: fraction * lengthMs }));
}
