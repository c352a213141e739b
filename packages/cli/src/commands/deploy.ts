import { basename, dirname, relative } from "node:path";
import { createClient, type WeftClient } from "@weft/client";
import type { Command } from "commander";
import { connect } from "../api.ts";
import type { CommandContext } from "../context.ts";
import { CliError, UsageError } from "../errors.ts";
import { examples } from "../help.ts";
import { ask, choose } from "../input.ts";
import { exchangeOidcToken, oidcProjectRequired } from "../oidc-exchange.ts";
import { plural } from "../plural.ts";
import { locateConfig, writePinnedProject } from "../project/config-file.ts";
import {
  createCommandFor,
  createIntegrationInteractively,
  missingIntegrations,
} from "../project/declared-integrations.ts";
import { type LoadedConfig, loadConfig } from "../project/load-config.ts";
import { ingressSummary, listIngress } from "../resources.ts";
import { runCommand } from "../run-command.ts";

interface DeployOptions {
  project?: string;
  create?: boolean;
  name?: string;
}

interface Target {
  projectId: string;
  /** How the project was chosen, for the summary. */
  how: "flag" | "pinned" | "created" | "picked";
  pinned: boolean;
}

async function createAndPin(client: WeftClient, loaded: LoadedConfig, name: string): Promise<string> {
  const project = await client.projects.create({ name });
  writePinnedProject(loaded.path, project.id);
  return project.id;
}

async function pickInteractively(context: CommandContext, client: WeftClient, loaded: LoadedConfig): Promise<Target> {
  const { results } = await client.projects.list({ pagination: { first: 100 } });
  const choice = await choose<string>(context.output, {
    message: "Which project should this deploy to? (it is pinned in weft.config.ts)",
    options: [
      { value: "", label: "Create a new project" },
      ...results.map((project) => ({ value: project.id, label: project.name, hint: project.id })),
    ],
  });
  if (choice !== "") {
    writePinnedProject(loaded.path, choice);
    return { projectId: choice, how: "picked", pinned: true };
  }
  const name = await ask(context.output, {
    message: "Name of the new project",
    placeholder: basename(dirname(loaded.path)),
    validate: (value) => (value.length > 64 ? "At most 64 characters" : undefined),
  });
  const projectId = await createAndPin(client, loaded, name || basename(dirname(loaded.path)));
  return { projectId, how: "created", pinned: true };
}

/**
 * Which project to deploy to: `--project`, else the one pinned in the config, else `--create`
 * (created and pinned), else a choice on a terminal. Scripts without any of them are told which
 * flags exist.
 */
async function resolveTarget(
  context: CommandContext,
  client: WeftClient,
  loaded: LoadedConfig,
  options: DeployOptions,
): Promise<Target> {
  if (options.project !== undefined) return { projectId: options.project, how: "flag", pinned: false };
  if (loaded.config.project !== undefined && loaded.config.project !== "") {
    return { projectId: loaded.config.project, how: "pinned", pinned: false };
  }
  if (options.create) {
    const projectId = await createAndPin(client, loaded, options.name ?? basename(dirname(loaded.path)));
    return { projectId, how: "created", pinned: true };
  }
  if (context.output.interactive) return pickInteractively(context, client, loaded);
  throw new UsageError("weft.config.ts names no project to deploy to", {
    fix: "pass --project <id> to deploy to an existing project, or --create [--name <name>] to create one (its id is then written into weft.config.ts)",
  });
}

/**
 * The client to deploy with: in CI with `WEFT_OIDC_TOKEN`, a credential of the target project
 * exchanged for that token (nothing stored); otherwise the logged-in credential.
 */
async function deployClient(
  context: CommandContext,
  loaded: LoadedConfig,
  options: DeployOptions,
): Promise<WeftClient> {
  const oidcToken = context.env.WEFT_OIDC_TOKEN?.trim();
  if (oidcToken === undefined || oidcToken === "") return connect(context);
  const pinned = loaded.config.project === "" ? undefined : loaded.config.project;
  const projectId = options.project ?? pinned;
  if (projectId === undefined) throw oidcProjectRequired();
  const exchanged = await exchangeOidcToken(context, { token: oidcToken, projectId });
  return createClient({ baseUrl: context.apiUrl, token: exchanged.accessToken });
}

/**
 * The integrations the workflows read must exist before the upload, and a project made by this
 * deploy has none: on a terminal they are asked for and created; a script is told the exact
 * commands, and the project stays pinned so that `weft deploy` alone finishes the job.
 */
async function provideIntegrations(
  context: CommandContext,
  client: WeftClient,
  projectId: string,
  manifest: LoadedConfig["manifest"],
): Promise<void> {
  const missing = await missingIntegrations(client, projectId, manifest);
  if (missing.size === 0) return;
  const listed = [...missing].map(([name, kind]) => `${name} (${kind})`).join(", ");
  if (!context.output.interactive) {
    const commands = [...missing].map(([name, kind]) => `\`${createCommandFor(name, kind, projectId)}\``);
    throw new CliError(`the workflows read integrations that project ${projectId} does not have yet: ${listed}`, {
      code: "integrations_missing",
      fix: `create them with ${commands.join(" and ")}, then run \`weft deploy\` again`,
    });
  }
  context.output.line(`The workflows read integrations that project ${projectId} does not have yet: ${listed}.`);
  for (const [name, kind] of missing) {
    await createIntegrationInteractively(context, client, { projectId, name, kind });
    context.output.line(`Created the ${kind} integration ${name}.`);
  }
}

export function registerDeploy(program: Command): void {
  program
    .command("deploy")
    .description("Validate weft.config.ts, bundle it with esbuild and upload it as a new deployment")
    .option("--project <id>", "deploy to this project (overrides the project pinned in weft.config.ts)")
    .option("--create", "create the project on first use and pin its id into weft.config.ts")
    .option("--name <name>", "name of the project --create makes (default: the directory name)")
    .addHelpText(
      "after",
      examples("weft deploy --create --name shop", "weft deploy", "weft deploy --project prj_01j... --json"),
    )
    .action(
      runCommand(async (context, options: DeployOptions) => {
        if (options.project !== undefined && options.create) {
          throw new UsageError("--project and --create exclude each other", {
            fix: "use --project <id> for an existing project, or --create to make one",
          });
        }
        if (options.name !== undefined && !options.create) throw new UsageError("--name only applies with --create");
        const path = locateConfig(context.cwd);
        const file = relative(context.cwd, path) || path;
        const progress = context.output.progress();
        progress.step(`Evaluating ${file}`);
        let loaded: LoadedConfig;
        try {
          loaded = await loadConfig(path);
        } catch (error) {
          progress.fail(`${file} is not deployable`);
          throw error;
        }
        const { manifest } = loaded;
        progress.done(
          `Validated ${file}: ${plural(manifest.workflows.length, "workflow")}, ${plural(manifest.forms.length, "form")}, ${plural(manifest.webhooks.length, "webhook")} (bundle ${(Buffer.byteLength(loaded.bundle) / 1024).toFixed(1)} kB)`,
        );
        const client = await deployClient(context, loaded, options);
        const target = await resolveTarget(context, client, loaded, options);
        if (target.how === "created") progress.done(`Created project ${target.projectId} and pinned it in ${file}`);
        else if (target.pinned) progress.done(`Pinned project ${target.projectId} in ${file}`);
        await provideIntegrations(context, client, target.projectId, manifest);
        progress.step(`Uploading to ${target.projectId}`);
        let deployment: Awaited<ReturnType<WeftClient["deployments"]["create"]>>;
        try {
          deployment = await client.deployments.create({
            projectId: target.projectId,
            manifest,
            bundle: loaded.bundle,
          });
        } catch (error) {
          progress.fail("Upload refused");
          throw error;
        }
        progress.done(`Deployed #${deployment.number} to ${target.projectId}`);
        const { forms, webhooks } = ingressSummary(await listIngress(client, target.projectId));
        const alertSecrets = deployment.alertSecrets ?? [];
        context.output.result(
          {
            projectId: target.projectId,
            projectCreated: target.how === "created",
            pinned: target.pinned,
            deployment: { id: deployment.id, number: deployment.number },
            workflows: manifest.workflows.map((workflow) => workflow.name),
            forms,
            webhooks,
            ...(alertSecrets.length === 0 ? {} : { alertSecrets }),
          },
          () => {
            const { output } = context;
            output.line();
            output.line(`${output.style(["green", "bold"], "Deployment")} #${deployment.number} is live.`);
            for (const form of forms) {
              output.line(`${output.style("bold", `form ${form.name}`)}`);
              if (form.pageUrl !== null) output.line(`  page  ${form.pageUrl}`);
              output.line(`  POST  ${form.url ?? "(internal: no public address)"}`);
            }
            for (const webhook of webhooks) {
              output.line(`${output.style("bold", `webhook ${webhook.name}`)}`);
              output.line(`  POST  ${webhook.url}`);
            }
            for (const alert of alertSecrets) {
              output.line(`${output.style("bold", "alert webhook")} ${alert.url}`);
              output.line(`  signing secret  ${alert.secret}`);
              output.line("  shown this once: keep it where the receiver checks X-Weft-Signature");
            }
          },
        );
      }),
    );
}
