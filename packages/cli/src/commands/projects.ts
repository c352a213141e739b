import { type Project, projectsPageLimit } from "@weft/contract";
import type { Command } from "commander";
import { connect } from "../api.ts";
import type { CommandContext } from "../context.ts";
import { UsageError } from "../errors.ts";
import { examples } from "../help.ts";
import { printPage } from "../page-output.ts";
import { type PageOptions, toPagination, withPageOptions } from "../pagination-options.ts";
import { runCommand } from "../run-command.ts";

/** `--retention-days`: a whole number of days, or `default` to follow the platform's WEFT_RETENTION_DAYS. */
function parseRetentionDays(value: string): number | null {
  if (value === "default") return null;
  const days = Number(value);
  if (!/^\d+$/.test(value) || days < 1 || days > 36500) {
    throw new UsageError(`--retention-days ${value} is not a whole number of days from 1 to 36500, nor \`default\``);
  }
  return days;
}

function showProject(context: CommandContext, project: Project): void {
  context.output.fields([
    ["id", project.id],
    ["name", project.name],
    ["workspace", project.workspaceId],
    ["retention", project.retentionDays === null ? "platform default" : `${project.retentionDays} days`],
    ["created", project.createdAt],
  ]);
}

export function registerProjects(program: Command): void {
  const projects = program
    .command("projects")
    .description("List, create, show and change projects")
    .addHelpText(
      "after",
      examples(
        "weft projects list",
        "weft projects create shop",
        "weft projects get prj_01j...",
        "weft projects update prj_01j... --retention-days 90",
      ),
    );

  withPageOptions(projects.command("list").description("List the projects of your workspaces"), projectsPageLimit)
    .addHelpText("after", examples("weft projects list", "weft projects list --limit 5 --json"))
    .action(
      runCommand(async (context, options: PageOptions) => {
        const page = await connect(context).projects.list({ pagination: toPagination(options, projectsPageLimit) });
        printPage(context.output, page, {
          headers: ["ID", "NAME", "WORKSPACE", "CREATED"],
          row: (project) => [project.id, project.name, project.workspaceId, project.createdAt],
          empty: "No projects yet: create one with `weft projects create <name>` or `weft deploy --create`.",
        });
      }),
    );

  projects
    .command("create")
    .description("Create a project in your personal workspace")
    .argument("<name>", "the project's name")
    .addHelpText("after", examples("weft projects create shop", "weft projects create shop --json"))
    .action(
      runCommand(async (context, name: string) => {
        const project = await connect(context).projects.create({ name });
        context.output.result(project, () => {
          context.output.line(`${context.output.style("green", "Created")} project ${project.name} (${project.id}).`);
          context.output.line(`Deploy to it with: weft deploy --project ${project.id}`);
        });
      }),
    );

  projects
    .command("get")
    .description("Show one project")
    .argument("<projectId>", "the project's id (prj_…)")
    .addHelpText("after", examples("weft projects get prj_01j...", "weft projects get prj_01j... --json"))
    .action(
      runCommand(async (context, projectId: string) => {
        const project = await connect(context).projects.get({ projectId });
        context.output.result(project, () => showProject(context, project));
      }),
    );

  projects
    .command("update")
    .description("Rename a project, or set how long its finished executions are kept")
    .argument("<projectId>", "the project's id (prj_…)")
    .option("--name <name>", "a new name, free in its workspace")
    .option("--retention-days <days>", "days finished executions are kept (1–36500), or `default`")
    .addHelpText(
      "after",
      examples(
        "weft projects update prj_01j... --name shop-eu",
        "weft projects update prj_01j... --retention-days 90",
        "weft projects update prj_01j... --retention-days default --json",
      ),
    )
    .action(
      runCommand(async (context, projectId: string, options: { name?: string; retentionDays?: string }) => {
        if (options.name === undefined && options.retentionDays === undefined) {
          throw new UsageError("nothing to change", { fix: "give --name, --retention-days, or both" });
        }
        const project = await connect(context).projects.update({
          projectId,
          ...(options.name === undefined ? {} : { name: options.name }),
          ...(options.retentionDays === undefined ? {} : { retentionDays: parseRetentionDays(options.retentionDays) }),
        });
        context.output.result(project, () => {
          context.output.line(`${context.output.style("green", "Updated")} project ${project.name} (${project.id}).`);
          showProject(context, project);
        });
      }),
    );
}
