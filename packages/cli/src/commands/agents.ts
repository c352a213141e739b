import { agentStatusSchema, agentsPageLimit } from "@weft/contract";
import type { Command } from "commander";
import { connect } from "../api.ts";
import { parseChoice } from "../choice-option.ts";
import { examples } from "../help.ts";
import { printPage } from "../page-output.ts";
import { type PageOptions, toPagination, withPageOptions } from "../pagination-options.ts";
import { runCommand } from "../run-command.ts";
import { resolveWorkspace } from "../workspace-option.ts";

/** How an agent's client reads in a table: the ID-JAG client of its issuer, or its User-Agent. */
function clientOf(agent: { clientId: string | null; issuer: string | null; userAgent: string | null }): string {
  if (agent.clientId !== null) return `${agent.clientId} (${agent.issuer ?? "?"})`;
  return agent.userAgent ?? "-";
}

export function registerAgents(program: Command): void {
  const agents = program
    .command("agents")
    .description("See the AI agents acting for you or your workspace, and cut them off")
    .addHelpText(
      "after",
      examples("weft agents list", "weft agents revoke reg_01j...", "weft agents revoke-all --workspace wsp_01j..."),
    );

  withPageOptions(
    agents.command("list").description("List your agents, or every member's (--workspace)"),
    agentsPageLimit,
  )
    .option("--workspace <id>", "every agent of every member of this workspace (owners and admins)")
    .option("--status <status>", "active, revoked or expired")
    .addHelpText(
      "after",
      examples("weft agents list", "weft agents list --workspace wsp_01j... --status active --json"),
    )
    .action(
      runCommand(async (context, options: PageOptions & { workspace?: string; status?: string }) => {
        const status = parseChoice(
          options.status,
          agentStatusSchema.options,
          `--status ${options.status} is not an agent status`,
        );
        const page = await connect(context).agents.list({
          ...(options.workspace === undefined ? {} : { workspaceId: options.workspace }),
          ...(status === undefined ? {} : { status }),
          pagination: toPagination(options, agentsPageLimit),
        });
        printPage(context.output, page, {
          headers: ["ID", "EMAIL", "TYPE", "CLIENT", "STATUS", "LAST USED"],
          row: (agent) => [
            agent.id,
            agent.email,
            agent.type,
            clientOf(agent.agent),
            agent.status,
            agent.lastUsedAt ?? "never",
          ],
          empty: "No agents.",
        });
      }),
    );

  agents
    .command("revoke")
    .description("Revoke an agent's credential; it is refused from its next request")
    .argument("<agentId>", "the agent's id (reg_…, see `weft agents list`)")
    .addHelpText("after", examples("weft agents revoke reg_01j..."))
    .action(
      runCommand(async (context, agentId: string) => {
        const agent = await connect(context).agents.revoke({ agentId });
        context.output.result(agent, () => {
          context.output.line(`${context.output.style("green", "Revoked")} agent ${agent.id} of ${agent.email}.`);
        });
      }),
    );

  agents
    .command("revoke-all")
    .description("Incident response: revoke every active credential of every member but your own")
    .option("--workspace <id>", "the workspace (default: your personal workspace)")
    .addHelpText("after", examples("weft agents revoke-all --workspace wsp_01j..."))
    .action(
      runCommand(async (context, options: { workspace?: string }) => {
        const workspaceId = await resolveWorkspace(context, options.workspace);
        const result = await connect(context).agents.revokeAll({ workspaceId });
        context.output.result(result, () => {
          context.output.line(`${context.output.style("green", "Revoked")} ${result.revoked} credential(s).`);
        });
      }),
    );
}
