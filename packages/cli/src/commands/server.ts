import type { Command } from "commander";
import { UsageError } from "../errors.ts";
import { examples } from "../help.ts";
import { bootstrapPlatform } from "../platform-entry.ts";
import { runCommand } from "../run-command.ts";

interface ServerOptions {
  port?: string;
  roles?: string;
}

export function registerServer(program: Command): void {
  program
    .command("server")
    .description("Start the platform (auth, API, ingress and workers on one process by default)")
    .option("-p, --port <port>", "port to listen on (PORT)")
    .option("--roles <roles>", "comma list of auth,api,ingress,worker (WEFT_ROLES)")
    .addHelpText(
      "after",
      `${examples("weft server", "DATABASE_URL=postgres://localhost/weft weft server --roles auth,api,ingress --port 8080")}
Every setting of the platform is read from the environment; see the README's configuration table.\n`,
    )
    .action(
      runCommand(async (context, options: ServerOptions) => {
        if (options.port !== undefined && !/^\d{1,5}$/.test(options.port)) {
          throw new UsageError(`--port ${options.port} is not a port number`);
        }
        // The flags stand in for their variables; the platform parses the result, starts, and
        // handles SIGINT/SIGTERM.
        await bootstrapPlatform(
          {
            ...context.env,
            ...(options.port === undefined ? {} : { PORT: options.port }),
            ...(options.roles === undefined ? {} : { WEFT_ROLES: options.roles }),
          },
          "platform",
        );
      }),
    );
}
