import { workflowsPageLimit } from "@weft/contract";
import type { Command } from "commander";
import { connect } from "../api.ts";
import { examples } from "../help.ts";
import { printPage } from "../page-output.ts";
import { type PageOptions, toPagination, withPageOptions } from "../pagination-options.ts";
import { parseInputOption } from "../parse-input.ts";
import { resolveProject, withProjectOption } from "../project-option.ts";
import { runCommand } from "../run-command.ts";
import { collectTag, durationOption } from "../run-options.ts";
import { watchExecution } from "../watch-execution.ts";

interface RunOptions {
  project?: string;
  input: string;
  idempotencyKey?: string;
  delay?: string;
  ttl?: string;
  tag: string[];
  watch?: boolean;
}

export function registerWorkflows(program: Command): void {
  const workflows = program
    .command("workflows")
    .description("List the active deployment's workflows and run them")
    .addHelpText(
      "after",
      examples("weft workflows list", `weft workflows run greet --input '{"name": "Ada"}' --watch`),
    );

  withProjectOption(
    withPageOptions(
      workflows.command("list").description("List the workflows of the active deployment, by name"),
      workflowsPageLimit,
    ),
  )
    .addHelpText("after", examples("weft workflows list", "weft workflows list --project prj_01j... --json"))
    .action(
      runCommand(async (context, options: { project?: string } & PageOptions) => {
        const page = await connect(context).workflows.list({
          projectId: resolveProject(context, options.project),
          pagination: toPagination(options, workflowsPageLimit),
        });
        printPage(context.output, page, {
          headers: ["NAME", "DEPLOYMENT", "RETRIES", "TIMEOUT"],
          row: (workflow) => [
            workflow.name,
            `#${workflow.deploymentNumber}`,
            workflow.retries === undefined ? "-" : String(workflow.retries.maxAttempts),
            workflow.timeoutMs === undefined ? "-" : `${workflow.timeoutMs}ms`,
          ],
          empty: "No workflows: the project has no active deployment yet (run `weft deploy`).",
        });
      }),
    );

  withProjectOption(
    workflows
      .command("run")
      .description("Start an execution of a workflow")
      .argument("<name>", "the workflow's name")
      .option("--input <json|@file>", "the input: JSON text, or @path of a JSON file", "{}")
      .option("--idempotency-key <key>", "the same key within 24 hours starts no second execution")
      .option("--delay <duration>", 'start it this long from now ("90s", "5m", "1h", "2d"; at most a year)')
      .option("--ttl <duration>", "end it expired if not started this long after it was due (1s to 30d)")
      .option("--tag <tag>", "a label to list it by (repeat for more, at most 10)", collectTag, [] as string[])
      .option("--watch", "follow the execution until it ends"),
  )
    .addHelpText(
      "after",
      examples(
        `weft workflows run greet --input '{"name": "Ada"}'`,
        "weft workflows run greet --input @input.json --watch",
        "weft workflows run greet --delay 10m --ttl 1h --tag nightly",
      ),
    )
    .action(
      runCommand(async (context, name: string, options: RunOptions) => {
        const input = parseInputOption(options.input, context.cwd);
        const projectId = resolveProject(context, options.project);
        const { executionId, flowControl } = await connect(context).workflows.run({
          projectId,
          workflow: name,
          input,
          ...(options.idempotencyKey === undefined ? {} : { idempotencyKey: options.idempotencyKey }),
          ...(options.delay === undefined ? {} : { delay: durationOption(options.delay) }),
          ...(options.ttl === undefined ? {} : { ttl: durationOption(options.ttl) }),
          ...(options.tag.length === 0 ? {} : { tags: options.tag }),
        });
        if (options.watch && flowControl !== "skipped") return watchExecution(context, executionId);
        context.output.result({ executionId, ...(flowControl === undefined ? {} : { flowControl }) }, () => {
          if (flowControl === "skipped") {
            context.output.line(`Skipped: over the workflow's rateLimit. Recorded as ${executionId} (cancelled).`);
            return;
          }
          context.output.line(
            flowControl === "debounced"
              ? `Debounced into ${executionId}, which now starts with this input, a period from now.`
              : `Started ${executionId}.`,
          );
          context.output.line(`Follow it with: weft executions watch ${executionId}`);
        });
      }),
    );
}
