import { readFileSync } from "node:fs";
import { Command } from "commander";
import { registerAgents } from "./commands/agents.ts";
import { registerAudit } from "./commands/audit.ts";
import { registerDeploy } from "./commands/deploy.ts";
import { registerDeployments } from "./commands/deployments.ts";
import { registerDev } from "./commands/dev.ts";
import { registerEvents } from "./commands/events.ts";
import { registerExecutions } from "./commands/executions.ts";
import { registerFederation } from "./commands/federation.ts";
import { registerInit } from "./commands/init.ts";
import { registerIntegrations } from "./commands/integrations.ts";
import { registerLogin } from "./commands/login.ts";
import { registerLogout } from "./commands/logout.ts";
import { registerLogs } from "./commands/logs.ts";
import { registerMembers } from "./commands/members.ts";
import { registerProjects } from "./commands/projects.ts";
import { registerResources } from "./commands/resources.ts";
import { registerSchedules } from "./commands/schedules.ts";
import { registerServer } from "./commands/server.ts";
import { registerTraces } from "./commands/traces.ts";
import { registerUsage } from "./commands/usage.ts";
import { registerWhoami } from "./commands/whoami.ts";
import { registerWorker } from "./commands/worker.ts";
import { registerWorkflows } from "./commands/workflows.ts";
import { registerWorkspaces } from "./commands/workspaces.ts";
import { examples } from "./help.ts";

const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
  version: string;
};

/**
 * The `weft` command tree. Settings made here before the subcommands are added (exit override,
 * help configuration) are inherited by every subcommand.
 */
export function createProgram(): Command {
  const program = new Command("weft")
    .description("Deploy workflows, hosted forms and webhooks to Weft, and operate them.")
    .version(version, "-v, --version", "print the version of the CLI")
    .option("--api-url <url>", "address of the Weft platform (default: WEFT_API_URL, else http://localhost:3000)")
    .option("--json", "print the result as one JSON object on stdout")
    .helpOption("-h, --help", "show help for the command")
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showHelpAfterError("(add --help for usage and examples)")
    .exitOverride()
    .addHelpText(
      "after",
      examples("weft login", "weft init && weft deploy --create", "weft executions watch <executionId>"),
    );
  registerLogin(program);
  registerLogout(program);
  registerWhoami(program);
  registerInit(program);
  registerDeploy(program);
  registerDev(program);
  registerProjects(program);
  registerDeployments(program);
  registerWorkflows(program);
  registerExecutions(program);
  registerLogs(program);
  registerTraces(program);
  registerResources(program);
  registerWorkspaces(program);
  registerMembers(program);
  registerAgents(program);
  registerFederation(program);
  registerAudit(program);
  registerUsage(program);
  registerSchedules(program);
  registerEvents(program);
  registerIntegrations(program);
  registerServer(program);
  registerWorker(program);
  return program;
}
