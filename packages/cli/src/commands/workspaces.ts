import { accessPageLimit } from "@weft/contract";
import type { Command } from "commander";
import { connect } from "../api.ts";
import { examples } from "../help.ts";
import { printPage } from "../page-output.ts";
import { type PageOptions, toPagination, withPageOptions } from "../pagination-options.ts";
import { runCommand } from "../run-command.ts";

export function registerWorkspaces(program: Command): void {
  const workspaces = program
    .command("workspaces")
    .description("List your workspaces and create team workspaces")
    .addHelpText("after", examples("weft workspaces list", 'weft workspaces create "Acme"'));

  withPageOptions(
    workspaces.command("list").description("List your workspaces with your role in each"),
    accessPageLimit,
  )
    .addHelpText("after", examples("weft workspaces list", "weft workspaces list --json"))
    .action(
      runCommand(async (context, options: PageOptions) => {
        const page = await connect(context).access.listWorkspaces({
          pagination: toPagination(options, accessPageLimit),
        });
        printPage(context.output, page, {
          headers: ["ID", "NAME", "ROLE", "KIND"],
          row: (workspace) => [workspace.id, workspace.name, workspace.role, workspace.personal ? "personal" : "team"],
          empty: "No workspaces.",
        });
      }),
    );

  workspaces
    .command("create")
    .description("Create a team workspace; you become its owner")
    .argument("<name>", "the workspace's name")
    .addHelpText("after", examples('weft workspaces create "Acme"', "weft workspaces create acme --json"))
    .action(
      runCommand(async (context, name: string) => {
        const workspace = await connect(context).access.createWorkspace({ name });
        context.output.result(workspace, () => {
          context.output.line(
            `${context.output.style("green", "Created")} workspace ${workspace.name} (${workspace.id}).`,
          );
          context.output.line(`Invite people with: weft members invite <email> --workspace ${workspace.id}`);
        });
      }),
    );
}
