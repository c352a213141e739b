import { type ExecutionEvent, eventsPageLimit } from "@weft/contract";
import type { Command } from "commander";
import { connect } from "../api.ts";
import type { CommandContext } from "../context.ts";
import { printEvent } from "../event-lines.ts";
import { followEvents, interruptSignal } from "../event-stream.ts";
import { examples } from "../help.ts";
import { resolveProject, withProjectOption } from "../project-option.ts";
import { runCommand } from "../run-command.ts";

interface LogsOptions {
  project?: string;
  execution?: string;
  follow?: boolean;
}

type Scope = { executionId: string } | { projectId: string };

/**
 * Every recorded event of the scope, page after page, or those up to the page read when `signal`
 * aborts; answers where the stream goes on.
 */
async function readHistory(
  context: CommandContext,
  scope: Scope,
  onEvent: (event: ExecutionEvent) => void,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const client = connect(context);
  let cursor: string | undefined;
  for (;;) {
    const page = await client.workflows.listEvents({ ...scope, limit: eventsPageLimit, ...(cursor ? { cursor } : {}) });
    for (const event of page.data) onEvent(event);
    cursor = page.nextCursor;
    if (page.data.length < eventsPageLimit || signal?.aborted === true) return cursor;
  }
}

/**
 * `weft logs`: the logs and step events of a project's executions, or of one. `--follow` goes on
 * printing them as they are recorded (server-sent events): for one execution until it ends, for a
 * project until Ctrl-C.
 */
async function logs(context: CommandContext, options: LogsOptions): Promise<void> {
  const { output } = context;
  const scope: Scope =
    options.execution === undefined
      ? { projectId: resolveProject(context, options.project) }
      : { executionId: options.execution };
  const history: ExecutionEvent[] = [];
  let ended = false;
  // Heard from the start: Ctrl-C while the history prints ends as quietly as once it streams.
  const interrupted = options.follow === true ? interruptSignal() : undefined;
  const after = await readHistory(
    context,
    scope,
    (event) => {
      if (event.kind === "execution.ended") ended = true;
      history.push(event);
      if (options.follow === true || !output.json) printEvent(output, event);
    },
    interrupted,
  );
  if (interrupted === undefined) {
    if (output.json) output.result({ events: history, nextCursor: after }, () => undefined);
    else if (history.length === 0) output.line("No events yet.");
    return;
  }
  if (("executionId" in scope && ended) || interrupted.aborted) return;
  const projectId =
    "projectId" in scope
      ? scope.projectId
      : (await connect(context).workflows.getExecution({ executionId: scope.executionId })).projectId;
  await followEvents(context, {
    projectId,
    after,
    signal: interrupted,
    onEvent: (event) => {
      if ("executionId" in scope && event.executionId !== scope.executionId) return undefined;
      printEvent(output, event);
      return "executionId" in scope && event.kind === "execution.ended" ? "stop" : undefined;
    },
  });
}

export function registerLogs(program: Command): void {
  withProjectOption(
    program
      .command("logs")
      .description("Print the logs and step events of a project's executions (or of one)")
      .option("--execution <id>", "only this execution's")
      .option("-f, --follow", "go on printing events as they happen (until the execution ends, or Ctrl-C)"),
  )
    .addHelpText(
      "after",
      examples("weft logs", "weft logs --follow", "weft logs --execution exe_… --follow", "weft logs --json"),
    )
    .action(runCommand((context, options: LogsOptions) => logs(context, options)));
}
