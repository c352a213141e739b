import { pathToFileURL } from "node:url";
import type { Command } from "commander";
import { UsageError } from "../errors.ts";
import { examples } from "../help.ts";
import { platformEntry } from "../platform-entry.ts";
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
        if (options.port !== undefined) {
          if (!/^\d{1,5}$/.test(options.port)) throw new UsageError(`--port ${options.port} is not a port number`);
          context.env.PORT = options.port;
        }
        if (options.roles !== undefined) context.env.WEFT_ROLES = options.roles;
        // The server's own entry point parses the environment, starts, and handles SIGINT/SIGTERM.
        await import(pathToFileURL(platformEntry("main.ts")).href);
      }),
    );
}
