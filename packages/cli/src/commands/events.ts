import { sentEventsPageLimit } from "@weft/contract";
import type { Command } from "commander";
import { connect } from "../api.ts";
import { examples } from "../help.ts";
import { printPage } from "../page-output.ts";
import { type CursorPageOptions, toCursorPagination, withCursorPageOptions } from "../pagination-options.ts";
import { parseInputOption } from "../parse-input.ts";
import { resolveProject, withProjectOption } from "../project-option.ts";
import { runCommand } from "../run-command.ts";

interface SendOptions {
  project?: string;
  data?: string;
  id?: string;
}

interface ListOptions extends CursorPageOptions {
  project?: string;
  name?: string;
}

export function registerEvents(program: Command): void {
  const events = program
    .command("events")
    .description("Send events to a project's workflows, and list those sent")
    .addHelpText(
      "after",
      examples(`weft events send order.created --data '{"orderId": "o-1"}'`, "weft events list --name order.created"),
    );

  withProjectOption(
    events
      .command("send")
      .description("Send an event: starts the subscribed workflows, resumes the executions waiting for it")
      .argument("<name>", "the event's name, e.g. order.created")
      .option("--data <json|@file>", "the event's data: JSON text, or @path of a JSON file", "null")
      .option("--id <id>", "an idempotency id: the same id within 24 hours is answered with the first send"),
  )
    .addHelpText(
      "after",
      examples(
        `weft events send order.created --data '{"orderId": "o-1", "plan": "pro"}'`,
        "weft events send order.paid --data @paid.json --id payment-o-1 --json",
      ),
    )
    .action(
      runCommand(async (context, name: string, options: SendOptions) => {
        const data = parseInputOption(options.data ?? "null", context.cwd, "--data");
        const projectId = resolveProject(context, options.project);
        const sent = await connect(context).events.send({
          projectId,
          name,
          data,
          ...(options.id === undefined ? {} : { id: options.id }),
        });
        context.output.result(sent, () => {
          const verb = sent.duplicate ? "Already sent" : "Sent";
          context.output.line(`${verb} ${sent.id} (${sent.name}).`);
          for (const started of sent.executions)
            context.output.line(`Started ${started.executionId} (${started.workflow}).`);
          if (sent.executions.length === 0) context.output.line("It started no execution.");
          if (sent.resumed > 0) context.output.line(`Resumed ${sent.resumed} waiting execution(s).`);
          if (sent.cancelled > 0) context.output.line(`Cancelled ${sent.cancelled} execution(s).`);
          for (const skipped of sent.skipped) {
            context.output.line(
              `Not started ${skipped.workflow}: its input schema refuses the event (${skipped.message}).`,
            );
          }
        });
      }),
    );

  withProjectOption(
    withCursorPageOptions(
      events
        .command("list")
        .description("List the events sent to a project, newest first")
        .option("--name <name>", "only events of this name"),
      sentEventsPageLimit,
    ),
  )
    .addHelpText("after", examples("weft events list", "weft events list --name order.created --json"))
    .action(
      runCommand(async (context, options: ListOptions) => {
        const pagination = toCursorPagination(options, sentEventsPageLimit);
        const projectId = resolveProject(context, options.project);
        const page = await connect(context).events.list({
          projectId,
          ...(options.name === undefined ? {} : { name: options.name }),
          ...pagination,
        });
        printPage(context.output, page, {
          headers: ["SENT", "ID", "NAME", "SOURCE", "STARTED", "RESUMED", "CANCELLED"],
          row: (event) => [
            event.sentAt,
            event.id,
            event.name,
            event.source.name === null ? event.source.kind : `${event.source.kind} ${event.source.name}`,
            String(event.executions.length),
            String(event.resumed),
            String(event.cancelled),
          ],
          empty: "No events.",
        });
      }),
    );
}
