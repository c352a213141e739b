import type { ExecutionEvent } from "@weft/contract";
import type { Output } from "./output.ts";
import { formatDuration } from "./span-tree.ts";

const levelStyles = { debug: "dim", info: "reset", warn: "yellow", error: "red" } as const;

/**
 * One event as one line: time, workflow and execution, then what happened. Under `--json` one JSON
 * object per line (NDJSON), so a stream can be read as it comes.
 */
export function printEvent(output: Output, event: ExecutionEvent): void {
  if (output.json) {
    output.streams.stdout.write(`${JSON.stringify(event)}\n`);
    return;
  }
  const took = event.durationMs === null || event.kind === "sleep" ? "" : ` (${formatDuration(event.durationMs)})`;
  let message = `${event.message}${took}`;
  if (event.kind === "log") {
    const fields = event.fields === undefined ? "" : ` ${JSON.stringify(event.fields)}`;
    const level = (event.status ?? "info") as keyof typeof levelStyles;
    message = output.style(levelStyles[level] ?? "reset", `${level.padEnd(5)} ${event.message}${fields}`);
  } else if (event.status === "error" || event.status === "failed") {
    message = output.style("red", message);
  }
  output.line(
    `${output.style("dim", event.at)} ${event.workflow} ${output.style("dim", event.executionId)}  ${message}`,
  );
}
