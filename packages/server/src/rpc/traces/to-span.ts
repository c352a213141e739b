import type { SpanOutput } from "@weft/contract";
import type { SpanNode } from "../../traces/read-traces.ts";

export function toSpan(node: SpanNode): SpanOutput {
  return {
    ...node,
    startTime: node.startTime.toISOString(),
    endTime: node.endTime === null ? null : node.endTime.toISOString(),
    children: node.children.map(toSpan),
  };
}
