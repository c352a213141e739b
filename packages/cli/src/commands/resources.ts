import type { Command } from "commander";
import { connect } from "../api.ts";
import { examples } from "../help.ts";
import { resolveProject, withProjectOption } from "../project-option.ts";
import { ingressSummary, listIngress } from "../resources.ts";
import { runCommand } from "../run-command.ts";

export function registerResources(program: Command): void {
  const resources = program
    .command("resources")
    .description("The public forms and webhooks of a project")
    .addHelpText("after", examples("weft resources list"));

  withProjectOption(
    resources.command("list").description("List the addresses of the active deployment's forms and webhooks"),
  )
    .addHelpText("after", examples("weft resources list", "weft resources list --project prj_01j... --json"))
    .action(
      runCommand(async (context, options: { project?: string }) => {
        const projectId = resolveProject(context, options.project);
        const { forms, webhooks } = ingressSummary(await listIngress(connect(context), projectId));
        context.output.result({ projectId, forms, webhooks }, () =>
          context.output.table(
            ["KIND", "NAME", "WORKFLOW", "ADDRESS"],
            [
              ...forms.flatMap((form) => [
                ...(form.pageUrl === null ? [] : [["form page", form.name, form.workflow, form.pageUrl]]),
                [
                  "form POST",
                  form.name,
                  form.workflow,
                  `${form.url ?? "(internal: no public address)"}${form.disabled ? "  (disabled)" : ""}`,
                ],
              ]),
              ...webhooks.map((webhook) => [
                "webhook POST",
                webhook.name,
                webhook.workflow ?? `event ${webhook.event}`,
                `${webhook.url}${webhook.secretHeader === null ? "" : `  (header ${webhook.secretHeader})`}`,
              ]),
            ],
            "No forms or webhooks: the project has no active deployment with any (run `weft deploy`).",
          ),
        );
      }),
    );
}
