import { describeWorkflowError, type Execution } from "@weft/contract";
import { connect } from "./api.ts";
import type { CommandContext } from "./context.ts";
import { finalStatuses, progressLines } from "./execution-events.ts";

/** How often `watch` looks at the execution. */
const pollIntervalMs = 500;

/**
 * Follows an execution until it ends, printing each status change, attempt and completed step (a
 * spinner on a terminal, lines otherwise). Prints the final execution (the JSON object under
 * `--json`) and answers the exit code: 0 when it succeeded, 1 when it failed or was cancelled.
 */
export async function watchExecution(context: CommandContext, executionId: string): Promise<0 | 1> {
  const client = connect(context);
  const { output } = context;
  const progress = output.progress();
  let previous: Execution | undefined;
  let current = await client.workflows.getExecution({ executionId });
  for (;;) {
    for (const line of progressLines(previous, current)) {
      if (output.interactive) progress.step(`${current.workflow} ${executionId}: ${line}`);
      else output.line(`${executionId}  ${line}`);
    }
    if (finalStatuses.has(current.status)) break;
    previous = current;
    await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
    current = await client.workflows.getExecution({ executionId });
  }
  const finished = current;
  const succeeded = finished.status === "succeeded";
  if (output.interactive) {
    if (succeeded) progress.done(`${finished.workflow} ${executionId} succeeded`);
    else progress.fail(`${finished.workflow} ${executionId} ${finished.status}`);
  }
  output.result(finished, () => {
    if (succeeded) output.line(`output: ${JSON.stringify(finished.output)}`);
    else {
      output.streams.stderr.write(
        `${output.styleError(["red", "bold"], "error:")} execution ${executionId} ${finished.status}${finished.error ? `: ${describeWorkflowError(finished.error)}` : ""}\n` +
          `${output.styleError("dim", "  fix:")} see \`weft executions get ${executionId}\` and \`weft traces get ${finished.traceId}\`\n`,
      );
    }
    output.line(output.style("dim", `trace: weft traces get ${finished.traceId}`));
  });
  return succeeded ? 0 : 1;
}
