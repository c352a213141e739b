import { accessPageLimit, workspaceRoleSchema } from "@weft/contract";
import type { Command } from "commander";
import { connect } from "../api.ts";
import { parseChoice } from "../choice-option.ts";
import { examples } from "../help.ts";
import { memberAccountId } from "../member-account.ts";
import { printPage } from "../page-output.ts";
import { type PageOptions, toPagination, withPageOptions } from "../pagination-options.ts";
import { runCommand } from "../run-command.ts";
import { resolveWorkspace, withWorkspaceOption } from "../workspace-option.ts";

function parseRole(role: string) {
  return parseChoice(role, workspaceRoleSchema.options, `${role} is not a role`);
}

export function registerMembers(program: Command): void {
  const members = program
    .command("members")
    .description("List, invite and manage the members of a workspace")
    .addHelpText(
      "after",
      examples(
        "weft members list --workspace wsp_01j...",
        "weft members invite ada@example.com --role admin --workspace wsp_01j...",
        "weft members role ada@example.com viewer --workspace wsp_01j...",
      ),
    );

  withWorkspaceOption(
    withPageOptions(members.command("list").description("List a workspace's members"), accessPageLimit),
  )
    .addHelpText("after", examples("weft members list --workspace wsp_01j...", "weft members list --json"))
    .action(
      runCommand(async (context, options: PageOptions & { workspace?: string }) => {
        const workspaceId = await resolveWorkspace(context, options.workspace);
        const page = await connect(context).access.listMembers({
          workspaceId,
          pagination: toPagination(options, accessPageLimit),
        });
        printPage(context.output, page, {
          headers: ["ACCOUNT", "EMAIL", "ROLE", "JOINED"],
          row: (member) => [member.accountId, member.email, member.role, member.joinedAt],
          empty: "No members.",
        });
      }),
    );

  withWorkspaceOption(
    members
      .command("invite")
      .description("Invite someone by email; they accept from the link in the mail (valid 7 days)")
      .argument("<email>", "the invitee's email address")
      .option("--role <role>", "owner, admin, member or viewer", "member"),
  )
    .addHelpText("after", examples("weft members invite ada@example.com --role admin --workspace wsp_01j..."))
    .action(
      runCommand(async (context, email: string, options: { role: string; workspace?: string }) => {
        const role = parseRole(options.role);
        const workspaceId = await resolveWorkspace(context, options.workspace);
        const invitation = await connect(context).access.invite({ workspaceId, email, role });
        context.output.result(invitation, () => {
          context.output.line(
            `${context.output.style("green", "Invited")} ${invitation.email} as ${invitation.role} (${invitation.id}); the link works until ${invitation.expiresAt}.`,
          );
        });
      }),
    );

  withWorkspaceOption(
    members
      .command("role")
      .description("Give a member another role")
      .argument("<member>", "the member's email or account id (acc_…, see `weft members list`)")
      .argument("<role>", "owner, admin, member or viewer"),
  )
    .addHelpText(
      "after",
      examples(
        "weft members role ada@example.com viewer --workspace wsp_01j...",
        "weft members role acc_01j... viewer --workspace wsp_01j...",
      ),
    )
    .action(
      runCommand(async (context, memberName: string, role: string, options: { workspace?: string }) => {
        const parsed = parseRole(role);
        const workspaceId = await resolveWorkspace(context, options.workspace);
        const client = connect(context);
        const accountId = await memberAccountId(client, workspaceId, memberName);
        const member = await client.access.updateRole({ workspaceId, accountId, role: parsed });
        context.output.result(member, () => {
          context.output.line(`${context.output.style("green", "Updated")} ${member.email} is now ${member.role}.`);
        });
      }),
    );

  withWorkspaceOption(
    members
      .command("remove")
      .description("Remove a member; your own email or account id leaves the workspace")
      .argument("<member>", "the member's email or account id (acc_…)"),
  )
    .addHelpText(
      "after",
      examples(
        "weft members remove ada@example.com --workspace wsp_01j...",
        "weft members remove acc_01j... --workspace wsp_01j...",
      ),
    )
    .action(
      runCommand(async (context, memberName: string, options: { workspace?: string }) => {
        const workspaceId = await resolveWorkspace(context, options.workspace);
        const client = connect(context);
        const accountId = await memberAccountId(client, workspaceId, memberName);
        const removed = await client.access.removeMember({ workspaceId, accountId });
        context.output.result(removed, () => {
          context.output.line(`${context.output.style("green", "Removed")} ${removed.accountId} from ${workspaceId}.`);
        });
      }),
    );
}
