import { auditLogPageLimit } from "@weft/contract";
import type { Command } from "commander";
import { connect } from "../api.ts";
import { examples } from "../help.ts";
import { printPage } from "../page-output.ts";
import { type CursorPageOptions, toCursorPagination, withCursorPageOptions } from "../pagination-options.ts";
import { runCommand } from "../run-command.ts";
import { resolveWorkspace, withWorkspaceOption } from "../workspace-option.ts";

interface AuditOptions extends CursorPageOptions {
  workspace?: string;
  action?: string;
  actor?: string;
  since?: string;
  until?: string;
}

export function registerAudit(program: Command): void {
  withWorkspaceOption(
    withCursorPageOptions(
      program
        .command("audit")
        .description("Read a workspace's audit log, newest first (owners and admins)")
        .option("--action <action>", "only this action, e.g. member.invited")
        .option("--actor <id>", "only what this account (acc_…) or credential (cred_…) did")
        .option("--since <instant>", "from this ISO 8601 instant")
        .option("--until <instant>", "up to this ISO 8601 instant"),
      auditLogPageLimit,
    ),
  )
    .addHelpText(
      "after",
      examples(
        "weft audit --workspace wsp_01j...",
        "weft audit --action agent.revoked --since 2026-11-01T00:00:00Z --json",
      ),
    )
    .action(
      runCommand(async (context, options: AuditOptions) => {
        const pagination = toCursorPagination(options, auditLogPageLimit);
        const workspaceId = await resolveWorkspace(context, options.workspace);
        const filter = {
          ...(options.action === undefined ? {} : { action: options.action }),
          ...(options.actor === undefined ? {} : { actor: options.actor }),
          ...(options.since === undefined ? {} : { since: options.since }),
          ...(options.until === undefined ? {} : { until: options.until }),
        };
        const page = await connect(context).access.auditLog({
          workspaceId,
          filter,
          ...pagination,
        });
        printPage(context.output, page, {
          headers: ["WHEN", "ACTION", "ACTOR", "AGENT", "TARGET"],
          row: (event) => [
            event.createdAt,
            event.action,
            event.actor.email ?? event.actor.accountId ?? "-",
            event.actor.agentId ?? "-",
            `${event.targetType} ${event.targetId}`,
          ],
          empty: "No audit events.",
        });
      }),
    );
}
