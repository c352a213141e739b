import type { Command } from "commander";
import { connect } from "./api.ts";
import type { CommandContext } from "./context.ts";
import { UsageError } from "./errors.ts";

/** `--workspace <id>` on commands that work in one workspace. */
export function withWorkspaceOption(command: Command): Command {
  return command.option("--workspace <id>", "the workspace (default: your personal workspace)");
}

/** The workspace a command works in: `--workspace`, else the caller's personal workspace. */
export async function resolveWorkspace(context: CommandContext, flag: string | undefined): Promise<string> {
  if (flag !== undefined) return flag;
  const page = await connect(context).access.listWorkspaces({ pagination: { first: 100 } });
  const personal = page.results.find((workspace) => workspace.personal);
  if (personal !== undefined) return personal.id;
  throw new UsageError("no workspace given, and you have no personal workspace", {
    fix: "pass --workspace <id> (see `weft workspaces list`)",
  });
}
