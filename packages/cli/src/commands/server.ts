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
  const server = program
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

  server
    .command("rotate-secret-key")
    .description(
      "Re-encrypt every stored integration secret under WEFT_SECRET_KEY, opening them with WEFT_SECRET_KEY_PREVIOUS",
    )
    .addHelpText(
      "after",
      `${examples("WEFT_SECRET_KEY=<new> WEFT_SECRET_KEY_PREVIOUS=<old> weft server rotate-secret-key")}
Runs in batches and prints its progress; run it again to resume after a stop. See the README's "Rotating the secret key".\n`,
    )
    .action(
      runCommand(async (context) => {
        await bootstrapPlatform(context.env, "rotate-secret-key");
      }),
    );

  server
    .command("set-plan <workspaceId> <plan>")
    .description("Put a workspace on one of the plans of WEFT_PLANS (its quotas apply within a second)")
    .addHelpText(
      "after",
      `${examples('WEFT_PLANS=\'[{"name":"team","executionsPerMonth":100000}]\' weft server set-plan wsp_0123456789abcdefghijklmnop team')}
Run it with the platform's environment (DATABASE_URL, WEFT_PLANS): it writes to the platform's database.\n`,
    )
    .action(
      runCommand(async (context, workspaceId: string, plan: string) => {
        await bootstrapPlatform(context.env, "set-plan", [workspaceId, plan]);
      }),
    );
}
