import type { SpanOutput } from "@weft/contract";

export interface SpanRow {
  span: SpanOutput;
  depth: number;
  /** Where the span starts and how long it lasts, as fractions of the whole trace. */
  offset: number;
  width: number;
  durationMs: number | null;
}

/** The spans of a trace in depth-first order, each placed on the trace's time line. */
export function spanRows(roots: SpanOutput[], now: number): SpanRow[] {
  const flat: { span: SpanOutput; depth: number }[] = [];
  const visit = (span: SpanOutput, depth: number): void => {
    flat.push({ span, depth });
    for (const child of span.children) visit(child, depth + 1);
  };
  for (const root of roots) visit(root, 0);
  if (flat.length === 0) return [];
  const start = Math.min(...flat.map(({ span }) => Date.parse(span.startTime)));
  const endOf = (span: SpanOutput): number => (span.endTime === null ? now : Date.parse(span.endTime));
  const end = Math.max(...flat.map(({ span }) => endOf(span)));
  const total = Math.max(end - start, 1);
  return flat.map(({ span, depth }) => {
    const from = Date.parse(span.startTime);
    return {
      span,
      depth,
      offset: (from - start) / total,
      width: Math.max((endOf(span) - from) / total, 0.002),
      durationMs: span.endTime === null ? null : Date.parse(span.endTime) - from,
    };
  });
}
