import { type Project, projectsPageLimit } from "@weft/contract";
import type { Command } from "commander";
import { connect } from "../api.ts";
import type { CommandContext } from "../context.ts";
import { examples } from "../help.ts";
import { type PageOptions, toPagination, withPageOptions } from "../pagination-options.ts";
import { runCommand } from "../run-command.ts";

function showProject(context: CommandContext, project: Project): void {
  context.output.fields([
    ["id", project.id],
    ["name", project.name],
    ["workspace", project.workspaceId],
    ["created", project.createdAt],
  ]);
}

/** Prints the hint to the next page when there is one. */
export function morePages(
  context: CommandContext,
  page: { pagination: { hasNextPage: boolean; endCursor: string | null } },
): void {
  if (page.pagination.hasNextPage && page.pagination.endCursor !== null) {
    context.output.line(context.output.style("dim", `more: add --after ${page.pagination.endCursor}`));
  }
}

export function registerProjects(program: Command): void {
  const projects = program
    .command("projects")
    .description("List, create and show projects")
    .addHelpText("after", examples("weft projects list", "weft projects create shop", "weft projects get prj_01j..."));

  withPageOptions(projects.command("list").description("List the projects of your workspaces"), projectsPageLimit)
    .addHelpText("after", examples("weft projects list", "weft projects list --limit 5 --json"))
    .action(
      runCommand(async (context, options: PageOptions) => {
        const page = await connect(context).projects.list({ pagination: toPagination(options, projectsPageLimit) });
        context.output.result(page, () => {
          context.output.table(
            ["ID", "NAME", "WORKSPACE", "CREATED"],
            page.results.map((project) => [project.id, project.name, project.workspaceId, project.createdAt]),
            "No projects yet: create one with `weft projects create <name>` or `weft deploy --create`.",
          );
          morePages(context, page);
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
}
