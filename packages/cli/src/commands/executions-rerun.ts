import { isRpcError, type WeftClient } from "@weft/client";
import { executionsPageLimit } from "@weft/contract";
import { type Duration, durationToMs } from "@weft/sdk";
import type { Command } from "commander";
import { allPages } from "../all-pages.ts";
import { connect } from "../api.ts";
import type { CommandContext } from "../context.ts";
import { CliError, UsageError } from "../errors.ts";
import { examples } from "../help.ts";
import { confirmAction } from "../input.ts";
import { plural } from "../plural.ts";
import { resolveProject, withProjectOption } from "../project-option.ts";
import { terminalPrompts } from "../prompts.ts";
import { runCommand } from "../run-command.ts";

interface RerunOptions {
  project?: string;
  failed?: boolean;
  since?: string;
  workflow?: string;
  yes?: boolean;
}

interface RerunOutcome {
  rerun: { from: string; executionId: string }[];
  skipped: { executionId: string; reason: string }[];
}

/** `--since`: a duration back from now ("1h", "2d") or an ISO 8601 instant. */
function parseSince(value: string, now: Date): Date {
  try {
    return new Date(now.getTime() - durationToMs(value as Duration));
  } catch {
    const instant = new Date(value);
    if (/^\d{4}-\d{2}-\d{2}/.test(value) && !Number.isNaN(instant.getTime())) return instant;
    throw new UsageError(`--since ${value} is neither a duration nor an instant`, {
      fix: 'use a duration back from now, like "30m", "1h" or "2d", or an ISO 8601 instant like 2026-01-31T09:00:00Z',
    });
  }
}

/** The failed executions of the project created since `since`, oldest first, every page. */
async function failedSince(
  client: WeftClient,
  filter: { projectId: string; since: Date; workflow?: string | undefined },
): Promise<string[]> {
  const failed = await allPages((after) =>
    client.workflows.listExecutions({
      projectId: filter.projectId,
      status: "failed",
      createdFrom: filter.since.toISOString(),
      ...(filter.workflow === undefined ? {} : { workflow: filter.workflow }),
      pagination: { first: executionsPageLimit, ...(after === undefined ? {} : { after }) },
    }),
  );
  return failed.map((execution) => execution.id);
}

/** Re-runs each execution; one the platform refuses (its workflow is gone, say) is skipped with the reason. */
async function rerunAll(context: CommandContext, client: WeftClient, ids: string[]): Promise<RerunOutcome> {
  const outcome: RerunOutcome = { rerun: [], skipped: [] };
  const bar = context.output.interactive
    ? terminalPrompts?.progress({ max: ids.length, output: context.output.streams.stdout })
    : undefined;
  bar?.start(`Re-running ${plural(ids.length, "execution")}`);
  for (const executionId of ids) {
    try {
      const started = await client.workflows.rerunExecution({ executionId });
      outcome.rerun.push({ from: executionId, executionId: started.executionId });
    } catch (error) {
      if (!isRpcError(error, "BAD_REQUEST") && !isRpcError(error, "NOT_FOUND") && !isRpcError(error, "CONFLICT")) {
        bar?.error("Re-running stopped");
        throw error;
      }
      outcome.skipped.push({ executionId, reason: (error as Error).message });
    }
    bar?.advance(1, `${outcome.rerun.length + outcome.skipped.length} of ${ids.length}`);
  }
  bar?.stop(`Re-ran ${outcome.rerun.length}, skipped ${outcome.skipped.length}`);
  return outcome;
}

async function rerun(context: CommandContext, executionId: string | undefined, options: RerunOptions) {
  const { output } = context;
  const client = connect(context);
  if (executionId !== undefined) {
    if (options.failed || options.since !== undefined || options.workflow !== undefined) {
      throw new UsageError("an execution id excludes --failed, --since and --workflow", {
        fix: "re-run one execution with `weft executions rerun <id>`, or many with `--failed --since 1h`",
      });
    }
    const started = await client.workflows.rerunExecution({ executionId });
    output.result({ from: executionId, ...started }, () =>
      output.line(
        `Re-running ${executionId} as ${started.executionId} (weft logs --execution ${started.executionId} --follow)`,
      ),
    );
    return;
  }
  if (!options.failed || options.since === undefined) {
    throw new UsageError("say which executions to re-run", {
      fix: "pass an execution id, or --failed --since <duration|instant> [--workflow <name>]",
    });
  }
  const since = parseSince(options.since, new Date());
  const ids = await failedSince(client, {
    projectId: resolveProject(context, options.project),
    since,
    workflow: options.workflow,
  });
  if (ids.length > 0 && options.yes !== true) {
    const question = `Re-run ${plural(ids.length, "failed execution")} created since ${since.toISOString()}?`;
    if (!output.interactive) {
      throw new UsageError(`re-running ${plural(ids.length, "execution")} needs a confirmation`, {
        fix: "add --yes to re-run them without a question",
      });
    }
    if (!(await confirmAction(output, question))) {
      throw new CliError("nothing was re-run", { code: "cancelled", fix: "run the command again when you are ready" });
    }
  }
  const outcome = await rerunAll(context, client, ids);
  output.result(outcome, () => {
    for (const skipped of outcome.skipped) output.line(`skipped ${skipped.executionId}: ${skipped.reason}`);
    if (!output.interactive) output.line(`Re-ran ${outcome.rerun.length}, skipped ${outcome.skipped.length}.`);
  });
}

export function registerExecutionsRerun(executions: Command): void {
  withProjectOption(
    executions
      .command("rerun")
      .description("Start an execution again with the same input; or every failed one since a moment")
      .argument("[executionId]", "the execution to re-run (exe_…)")
      .option("--failed", "re-run the project's failed executions (with --since)")
      .option("--since <when>", 'created since: a duration back from now ("1h", "2d") or an ISO 8601 instant')
      .option("--workflow <name>", "only this workflow's")
      .option("-y, --yes", "re-run without asking for a confirmation"),
  )
    .addHelpText(
      "after",
      examples("weft executions rerun exe_01j...", "weft executions rerun --failed --since 1h --workflow greet --yes"),
    )
    .action(
      runCommand((context, executionId: string | undefined, options: RerunOptions) =>
        rerun(context, executionId, options),
      ),
    );
}
