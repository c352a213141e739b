import { isRpcError } from "@weft/client";
import { describeWorkflowError, type Execution, executionStatusSchema, executionsPageLimit } from "@weft/contract";
import type { Command } from "commander";
import { connect } from "../api.ts";
import { parseExecutionStatus } from "../choice-option.ts";
import type { CommandContext } from "../context.ts";
import { CliError } from "../errors.ts";
import { examples } from "../help.ts";
import { printNewestFirstPage } from "../page-output.ts";
import { type NewestPageOptions, toNewestPagination, withNewestPageOptions } from "../pagination-options.ts";
import { resolveProject, withProjectOption } from "../project-option.ts";
import { runCommand } from "../run-command.ts";
import { collectTag } from "../run-options.ts";
import { formatDuration } from "../span-tree.ts";
import { watchExecution } from "../watch-execution.ts";
import { registerExecutionsRerun } from "./executions-rerun.ts";

interface ListOptions extends NewestPageOptions {
  project?: string;
  workflow?: string;
  status?: string;
  tag: string[];
}

function showExecution(context: CommandContext, execution: Execution): void {
  const { output } = context;
  output.fields([
    ["id", execution.id],
    ["workflow", execution.workflow],
    ["status", execution.status],
    ["attempt", `${execution.attempt} of ${execution.maxAttempts}`],
    ["trigger", `${execution.trigger.kind}${execution.trigger.name ? ` ${execution.trigger.name}` : ""}`],
    ["created", execution.createdAt],
    ["finished", execution.finishedAt],
    ["input", JSON.stringify(execution.input)],
    ["output", execution.output === undefined ? undefined : JSON.stringify(execution.output)],
    ["error", execution.error === null ? undefined : describeWorkflowError(execution.error)],
    ["trace", execution.traceId],
    ["parent", execution.parentExecutionId ?? undefined],
    [
      "children",
      execution.children.length === 0
        ? undefined
        : execution.children.map((child) => `${child.id} (${child.workflow}, ${child.status})`).join(", "),
    ],
    ["tags", execution.tags.length === 0 ? undefined : execution.tags.join(", ")],
  ]);
  output.line();
  const steps = [
    ...execution.steps.map((step) => ({ ...step, status: "ok" })),
    ...execution.failedSteps.map((step) => ({ ...step, kind: "step", status: "failed" })),
  ].sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  output.table(
    ["STEP", "KIND", "ATTEMPT", "DURATION", "STATUS"],
    steps.map((step) => [step.name, step.kind, String(step.attempt), formatDuration(step.durationMs), step.status]),
    "No steps yet.",
  );
  for (const step of execution.failedSteps) {
    output.line(`step ${step.name} failed in attempt ${step.attempt}: ${step.error.name}: ${step.error.message}`);
  }
  if (execution.tokens.length === 0) return;
  output.line();
  // The token's URL is a secret: the workflow has it, the execution's record does not.
  output.table(
    ["TOKEN", "TITLE", "STATUS", "APPROVERS", "ANSWERED BY", "EXPIRES", "FINISHED"],
    execution.tokens.map((token) => [
      token.name,
      token.title ?? "",
      token.status,
      token.approvers,
      token.completedBy === null ? "" : (token.completedBy.email ?? token.completedBy.accountId),
      token.expiresAt,
      token.finishedAt ?? "",
    ]),
    "No wait tokens.",
  );
  for (const token of execution.tokens) {
    if (token.description === null && token.fields.length === 0) continue;
    output.line(`token ${token.name}:${token.description === null ? "" : ` ${token.description}`}`);
    for (const field of token.fields) output.line(`  ${field.label}: ${field.value}`);
  }
}

export function registerExecutions(program: Command): void {
  const executions = program
    .command("executions")
    .description("List, inspect, cancel and watch workflow executions")
    .addHelpText("after", examples("weft executions list --status failed", "weft executions watch exe_01j..."));

  withProjectOption(
    withNewestPageOptions(
      executions
        .command("list")
        .description("List a project's executions, newest first (the newest page; --before <cursor> for older ones)"),
      executionsPageLimit,
    ),
  )
    .option("--workflow <name>", "only this workflow's")
    .option("--status <status>", `only these: ${executionStatusSchema.options.join(", ")}`)
    .option("--tag <tag>", "only those holding this tag (repeat: all of them)", collectTag, [] as string[])
    .addHelpText(
      "after",
      examples(
        "weft executions list",
        "weft executions list --workflow greet --status failed --json",
        "weft executions list --tag nightly",
      ),
    )
    .action(
      runCommand(async (context, options: ListOptions) => {
        const status = parseExecutionStatus(options.status);
        const page = await connect(context).workflows.listExecutions({
          projectId: resolveProject(context, options.project),
          ...(options.workflow === undefined ? {} : { workflow: options.workflow }),
          ...(status === undefined ? {} : { status }),
          ...(options.tag.length === 0 ? {} : { tags: options.tag }),
          pagination: toNewestPagination(options, executionsPageLimit),
        });
        printNewestFirstPage(context.output, page, {
          headers: ["ID", "WORKFLOW", "STATUS", "ATTEMPT", "TRIGGER", "CREATED"],
          row: (execution) => [
            execution.id,
            execution.workflow,
            execution.status,
            String(execution.attempt),
            execution.trigger.kind,
            execution.createdAt,
          ],
          empty: "No executions.",
        });
      }),
    );

  executions
    .command("get")
    .description("Show an execution with its steps (the failed ones too) and wait tokens")
    .argument("<executionId>", "the execution's id (exe_…)")
    .addHelpText("after", examples("weft executions get exe_01j...", "weft executions get exe_01j... --json"))
    .action(
      runCommand(async (context, executionId: string) => {
        const execution = await connect(context).workflows.getExecution({ executionId });
        context.output.result(execution, () => showExecution(context, execution));
      }),
    );

  executions
    .command("cancel")
    .description("Cancel an execution (a running one stops at its next step)")
    .argument("<executionId>", "the execution's id (exe_…)")
    .addHelpText("after", examples("weft executions cancel exe_01j..."))
    .action(
      runCommand(async (context, executionId: string) => {
        const api = connect(context);
        const cancelled = await api.workflows.cancelExecution({ executionId }).catch(async (error: unknown) => {
          if (!isRpcError(error, "CONFLICT")) throw error;
          // The execution has ended. Cancelling twice is what a retried script does: not a failure.
          const { status } = await api.workflows.getExecution({ executionId });
          if (status === "cancelled") return { executionId, status };
          throw new CliError(`${executionId} has already ${status}; there is nothing left to cancel`, {
            code: "conflict",
            fix: `\`weft executions get ${executionId}\` shows how it ended`,
          });
        });
        context.output.result(cancelled, () =>
          context.output.line(`Cancelled ${executionId}: it is ${cancelled.status} now.`),
        );
      }),
    );

  executions
    .command("answer")
    .description("Approve or reject a wait token of an execution, as a member who may change its project")
    .argument("<executionId>", "the execution's id (exe_…)")
    .argument("<token>", "the token's name, as `weft executions get` lists it")
    .option("--approve", "approve it: the workflow receives { approved: true }")
    .option("--reject", "reject it: the workflow receives { approved: false }")
    .addHelpText("after", examples("weft executions answer exe_01j... approval --approve"))
    .action(
      runCommand(async (context, executionId: string, name: string, options: { approve?: true; reject?: true }) => {
        if ((options.approve === true) === (options.reject === true)) {
          throw new CliError("say --approve or --reject (one of the two)", {
            code: "invalid_input",
            fix: `weft executions answer ${executionId} ${name} --approve`,
          });
        }
        const decision = options.approve === true ? "approve" : "reject";
        const answered = await connect(context).workflows.answerToken({ executionId, name, decision });
        context.output.result(answered, () =>
          context.output.line(`${decision === "approve" ? "Approved" : "Rejected"} ${name} of ${executionId}.`),
        );
      }),
    );

  executions
    .command("watch")
    .description("Follow an execution's status and steps until it ends (exit 1 if it fails)")
    .argument("<executionId>", "the execution's id (exe_…)")
    .addHelpText("after", examples("weft executions watch exe_01j...", "weft executions watch exe_01j... --json"))
    .action(runCommand(async (context, executionId: string) => watchExecution(context, executionId)));

  registerExecutionsRerun(executions);
}
