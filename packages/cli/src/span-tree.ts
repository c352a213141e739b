/** The fields of a span that the tree needs (OpenTelemetry-shaped). */
export interface SpanLike {
  spanId: string;
  parentSpanId: string | null | undefined;
  name: string;
  startTime: string;
  endTime: string | null | undefined;
  status: string;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)}s`;
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes}m${Math.round((ms % 60_000) / 1000)}s`;
  return `${Math.floor(minutes / 60)}h${minutes % 60}m`;
}

/**
 * Renders spans as an indented tree, children under their parent in start order, each with its
 * duration and status. Spans whose parent is not in the list are roots.
 */
export function renderSpanTree(spans: SpanLike[]): string[] {
  const ids = new Set(spans.map((span) => span.spanId));
  const children = new Map<string | undefined, SpanLike[]>();
  for (const span of spans) {
    const parent = span.parentSpanId && ids.has(span.parentSpanId) ? span.parentSpanId : undefined;
    children.set(parent, [...(children.get(parent) ?? []), span]);
  }
  for (const list of children.values()) list.sort((a, b) => Date.parse(a.startTime) - Date.parse(b.startTime));
  const lines: string[] = [];
  const visit = (span: SpanLike, at: { prefix: string; last: boolean; root: boolean }) => {
    const duration =
      span.endTime === null || span.endTime === undefined
        ? "running"
        : formatDuration(Date.parse(span.endTime) - Date.parse(span.startTime));
    const branch = at.root ? "" : at.last ? "└─ " : "├─ ";
    lines.push(`${at.prefix}${branch}${span.name}  ${duration}  ${span.status}`);
    const kids = children.get(span.spanId) ?? [];
    const prefix = at.root ? "" : `${at.prefix}${at.last ? "   " : "│  "}`;
    for (const [index, child] of kids.entries()) visit(child, { prefix, last: index === kids.length - 1, root: false });
  };
  for (const root of children.get(undefined) ?? []) visit(root, { prefix: "", last: true, root: true });
  return lines;
}
