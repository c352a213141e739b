import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import type { CommandContext } from "./context.ts";
import { UsageError } from "./errors.ts";
import { configFileName } from "./project/config-file.ts";
import { pinnedProject } from "./project/pin-project.ts";

/** `--project <id>` on commands that work inside one project. */
export function withProjectOption(command: Command): Command {
  return command.option("--project <id>", "the project (default: the one pinned in ./weft.config.ts)");
}

/**
 * The project a command works in: `--project`, else the project pinned in the current directory's
 * `weft.config.ts` (read as text, without running the config).
 */
export function resolveProject(context: CommandContext, flag: string | undefined): string {
  if (flag !== undefined) return flag;
  const path = join(context.cwd, configFileName);
  const pinned = existsSync(path) ? pinnedProject(readFileSync(path, "utf8")) : undefined;
  if (pinned !== undefined) return pinned;
  throw new UsageError("no project given, and there is no project pinned in ./weft.config.ts", {
    fix: "pass --project <id> (see `weft projects list`), or run the command in a deployed project's directory",
  });
}
