import type { Command } from "commander";
import { examples } from "../help.ts";
import { bootstrapPlatform } from "../platform-entry.ts";
import { runCommand } from "../run-command.ts";

export function registerWorker(program: Command): void {
  program
    .command("worker")
    .description("Start a worker process that runs workflow executions from the shared database")
    .addHelpText(
      "after",
      `${examples("DATABASE_URL=postgres://localhost/weft weft worker")}
Workers need the database the API uses: set DATABASE_URL (and WEFT_SECRET_KEY) as for \`weft server\`.\n`,
    )
    .action(
      runCommand(async (context) => {
        await bootstrapPlatform(context.env, "worker");
      }),
    );
}
