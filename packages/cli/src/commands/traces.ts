import { type SpanOutput, tracesPageLimit } from "@weft/contract";
import type { Command } from "commander";
import { connect } from "../api.ts";
import { parseExecutionStatus } from "../choice-option.ts";
import { examples } from "../help.ts";
import { printPage } from "../page-output.ts";
import { type CursorPageOptions, toCursorPagination, withCursorPageOptions } from "../pagination-options.ts";
import { resolveProject, withProjectOption } from "../project-option.ts";
import { runCommand } from "../run-command.ts";
import { formatDuration, renderSpanTree, type SpanLike } from "../span-tree.ts";

interface ListOptions extends CursorPageOptions {
  project?: string;
  workflow?: string;
  status?: string;
}

/** The tree the API returns, as the flat list the renderer reads. */
function flatten(spans: SpanOutput[]): SpanLike[] {
  return spans.flatMap((span) => [
    {
      spanId: span.spanId,
      parentSpanId: span.parentSpanId,
      name: span.name,
      startTime: span.startTime,
      endTime: span.endTime,
      status: span.status.message ? `${span.status.code}: ${span.status.message}` : span.status.code,
    },
    ...flatten(span.children),
  ]);
}

export function registerTraces(program: Command): void {
  const traces = program
    .command("traces")
    .description("List a project's traces and show one as a tree of spans")
    .addHelpText("after", examples("weft traces list", "weft traces get 4bf92f3577b34da6a3ce929d0e0e4736"));

  withCursorPageOptions(
    withProjectOption(traces.command("list").description("List traces, newest first"))
      .option("--workflow <name>", "only this workflow's")
      .option("--status <status>", "only executions with this status"),
    tracesPageLimit,
  )
    .addHelpText("after", examples("weft traces list", "weft traces list --status failed --json"))
    .action(
      runCommand(async (context, options: ListOptions) => {
        const pagination = toCursorPagination(options, tracesPageLimit);
        const status = parseExecutionStatus(options.status);
        const page = await connect(context).traces.list({
          projectId: resolveProject(context, options.project),
          ...(options.workflow === undefined ? {} : { workflow: options.workflow }),
          ...(status === undefined ? {} : { status }),
          ...pagination,
        });
        printPage(context.output, page, {
          headers: ["TRACE", "NAME", "EXECUTION", "STATUS", "STARTED", "DURATION"],
          row: (trace) => [
            trace.traceId,
            trace.name,
            trace.executionId ?? "-",
            trace.executionStatus ?? trace.status.code,
            trace.startTime,
            trace.durationMs === null ? "running" : formatDuration(trace.durationMs),
          ],
          empty: "No traces yet.",
        });
      }),
    );

  withProjectOption(
    traces
      .command("get")
      .description("Show a trace as a tree of spans with durations")
      .argument("<traceId>", "the trace id"),
  )
    .addHelpText(
      "after",
      examples("weft traces get 4bf92f3577b34da6a3ce929d0e0e4736", "weft traces get <traceId> --json"),
    )
    .action(
      runCommand(async (context, traceId: string, options: { project?: string }) => {
        const trace = await connect(context).traces.get({
          projectId: resolveProject(context, options.project),
          traceId,
        });
        context.output.result(trace, () => {
          context.output.line(context.output.style("bold", `trace ${trace.traceId}`));
          for (const line of renderSpanTree(flatten(trace.spans))) context.output.line(line);
        });
      }),
    );
}
