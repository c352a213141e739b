import { readFileSync } from "node:fs";
import { type Integration, type IntegrationKind, integrationKinds, integrationsPageLimit } from "@weft/contract";
import { type Command, Option } from "commander";
import { connect } from "../api.ts";
import type { CommandContext } from "../context.ts";
import { UsageError } from "../errors.ts";
import { examples } from "../help.ts";
import { askSecret } from "../input.ts";
import { printPage } from "../page-output.ts";
import { type PageOptions, toPagination, withPageOptions } from "../pagination-options.ts";
import { resolveProject, withProjectOption } from "../project-option.ts";
import { runCommand } from "../run-command.ts";

/** Where secret values come from: never the command line itself, where shells and `ps` keep them. */
interface SecretSourceOptions {
  fromEnv?: string;
  fromFile?: string;
}

interface ConfigOptions {
  baseUrl?: string;
  host?: string;
  port?: string;
  user?: string;
}

function describeSecrets(integration: Integration): string {
  const entries = Object.entries(integration.secrets);
  return entries.length === 0 ? "-" : entries.map(([name, secret]) => `${name}=${secret.hint}`).join(", ");
}

function showIntegration(context: CommandContext, integration: Integration): void {
  context.output.fields([
    ["name", integration.name],
    ["kind", integration.kind],
    ...Object.entries(integration.config).map(([field, value]): [string, string] => [field, String(value)]),
    ...Object.entries(integration.secrets).map(([name, secret]): [string, string] => [
      `secret ${name}`,
      `${secret.hint} (changed ${secret.changedAt}${secret.changedBy === null ? "" : ` by ${secret.changedBy}`})`,
    ]),
  ]);
}

/** The value of one secret: from the environment, a file, or a hidden prompt. */
async function secretValue(context: CommandContext, what: string, options: SecretSourceOptions): Promise<string> {
  if (options.fromEnv !== undefined) {
    const value = process.env[options.fromEnv];
    if (value === undefined || value === "") {
      throw new UsageError(`the environment variable ${options.fromEnv} is not set`, {
        fix: `export ${options.fromEnv}=… first, or leave out --from-env to be prompted`,
      });
    }
    return value;
  }
  if (options.fromFile !== undefined) {
    let text: string;
    try {
      text = readFileSync(options.fromFile, "utf8");
    } catch {
      throw new UsageError(`cannot read ${options.fromFile}`, { fix: "give a readable file to --from-file" });
    }
    // Editors end files with a newline that is no part of the secret.
    return text.replace(/\r?\n$/, "");
  }
  if (!context.output.interactive) {
    throw new UsageError(`no value for ${what}`, {
      fix: "give it with --from-env VAR or --from-file PATH, or run the command in a terminal to be prompted",
    });
  }
  return askSecret(context.output, `Value of ${what} (hidden)`);
}

/** The values of the named secrets; a file or a variable can hold only one. */
async function secretValues(
  context: CommandContext,
  names: string[],
  options: SecretSourceOptions,
): Promise<Record<string, string>> {
  if (options.fromEnv !== undefined && options.fromFile !== undefined) {
    throw new UsageError("give --from-env or --from-file, not both");
  }
  if (names.length > 1 && (options.fromEnv !== undefined || options.fromFile !== undefined)) {
    throw new UsageError("--from-env and --from-file give one secret's value", {
      fix: "set one header per command, or leave them out to be prompted for each",
    });
  }
  const values: Record<string, string> = {};
  for (const name of names) values[name] = await secretValue(context, name, options);
  return values;
}

function configOf(kind: IntegrationKind, options: ConfigOptions): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  if (options.baseUrl !== undefined) config.baseUrl = options.baseUrl;
  if (options.host !== undefined) config.host = options.host;
  if (options.port !== undefined) {
    const port = Number(options.port);
    if (!Number.isInteger(port)) throw new UsageError(`--port ${options.port} is not a port number`);
    config.port = port;
  }
  if (options.user !== undefined) config.user = options.user;
  const allowed = { secret: [], http: ["baseUrl"], smtp: ["host", "port", "user"] }[kind] as string[];
  const foreign = Object.keys(config).filter((field) => !allowed.includes(field));
  if (foreign.length > 0) throw new UsageError(`a ${kind} integration has no ${foreign.join(", ")}`);
  return config;
}

function withConfigOptions(command: Command): Command {
  return command
    .option("--base-url <url>", "http: the URL the workflow's fetch calls under")
    .option("--host <host>", "smtp: the server's host")
    .option("--port <port>", "smtp: the server's port")
    .option("--user <user>", "smtp: the user name");
}

function withSecretSources(command: Command): Command {
  return command
    .option("--from-env <var>", "read the secret's value from this environment variable")
    .option("--from-file <path>", "read the secret's value from this file");
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerIntegrations(program: Command): void {
  const integrations = program
    .command("integrations")
    .description("Manage a project's integrations: secrets and connections its workflows read")
    .addHelpText(
      "after",
      examples(
        "weft integrations create stripe --kind secret",
        "weft integrations create crm --kind http --base-url https://crm.example.com --header Authorization --from-env CRM_TOKEN",
        "weft integrations update stripe --secret --from-file ./stripe.key",
        "weft integrations list",
      ),
    );

  withProjectOption(
    withPageOptions(
      integrations.command("list").description("List the integrations, secrets masked"),
      integrationsPageLimit,
    ),
  )
    .addHelpText("after", examples("weft integrations list", "weft integrations list --json"))
    .action(
      runCommand(async (context, options: { project?: string } & PageOptions) => {
        const projectId = resolveProject(context, options.project);
        const page = await connect(context).integrations.list({
          projectId,
          pagination: toPagination(options, integrationsPageLimit),
        });
        printPage(context.output, page, {
          headers: ["NAME", "KIND", "CONFIG", "SECRETS", "UPDATED"],
          row: (integration) => [
            integration.name,
            integration.kind,
            Object.entries(integration.config)
              .map(([field, value]) => `${field}=${String(value)}`)
              .join(" ") || "-",
            describeSecrets(integration),
            integration.updatedAt,
          ],
          empty: "No integrations: add one with `weft integrations create <name> --kind secret`.",
        });
      }),
    );

  withSecretSources(
    withConfigOptions(
      withProjectOption(
        integrations
          .command("create")
          .description(
            "Create an integration; its secret values are prompted for (hidden) or read from --from-env/--from-file",
          )
          .argument("<name>", "1 to 64 characters of a-z, 0-9, _ and -")
          .addOption(new Option("--kind <kind>", "what it is").choices(integrationKinds).makeOptionMandatory())
          .option("--header <name>", "http: a header whose value is a secret (repeatable)", collect, []),
      ),
    ),
  )
    .addHelpText(
      "after",
      examples(
        "weft integrations create stripe --kind secret --from-env STRIPE_KEY",
        "weft integrations create mail --kind smtp --host smtp.example.com --port 587 --user robot",
      ),
    )
    .action(
      runCommand(
        async (
          context,
          name: string,
          options: { project?: string; kind: IntegrationKind; header: string[] } & ConfigOptions & SecretSourceOptions,
        ) => {
          const projectId = resolveProject(context, options.project);
          if (options.kind !== "http" && options.header.length > 0) {
            throw new UsageError("--header is for http integrations");
          }
          const config = configOf(options.kind, options);
          const names = { secret: ["value"], smtp: ["password"], http: options.header }[options.kind];
          const secrets = await secretValues(context, names, options);
          const api = connect(context).integrations;
          const created =
            options.kind === "secret"
              ? await api.create({ projectId, name, kind: "secret", secrets: { value: secrets.value ?? "" } })
              : options.kind === "smtp"
                ? await api.create({
                    projectId,
                    name,
                    kind: "smtp",
                    config: config as { host: string; port: number; user: string },
                    secrets: { password: secrets.password ?? "" },
                  })
                : await api.create({ projectId, name, kind: "http", config: config as { baseUrl: string }, secrets });
          context.output.result(created, () => showIntegration(context, created));
        },
      ),
    );

  withSecretSources(
    withConfigOptions(
      withProjectOption(
        integrations
          .command("update")
          .description("Change an integration; secrets not named keep their values")
          .argument("<name>", "the integration's name")
          .option("--secret", "secret and smtp: set a new value (or password)")
          .option("--header <name>", "http: set this header's value (repeatable)", collect, [])
          .option("--remove-header <name>", "http: remove this header (repeatable)", collect, []),
      ),
    ),
  )
    .addHelpText(
      "after",
      examples(
        "weft integrations update stripe --secret --from-env NEW_STRIPE_KEY",
        "weft integrations update crm --base-url https://crm.example.com/v2 --remove-header X-Old",
      ),
    )
    .action(
      runCommand(
        async (
          context,
          name: string,
          options: { project?: string; secret?: boolean; header: string[]; removeHeader: string[] } & ConfigOptions &
            SecretSourceOptions,
        ) => {
          const projectId = resolveProject(context, options.project);
          const api = connect(context).integrations;
          const current = await api.get({ projectId, name });
          const named = options.secret === true ? [current.kind === "smtp" ? "password" : "value"] : options.header;
          const secrets: Record<string, string | null> = await secretValues(context, named, options);
          for (const header of options.removeHeader) secrets[header] = null;
          const config = configOf(current.kind, options);
          if (Object.keys(secrets).length === 0 && Object.keys(config).length === 0) {
            throw new UsageError("nothing to change", { fix: "name a secret (--secret, --header) or a config option" });
          }
          const updated = await api.update({ projectId, name, config, secrets });
          context.output.result(updated, () => showIntegration(context, updated));
        },
      ),
    );

  withProjectOption(
    integrations
      .command("delete")
      .description("Delete an integration and its secrets")
      .argument("<name>", "the integration's name"),
  )
    .addHelpText("after", examples("weft integrations delete stripe"))
    .action(
      runCommand(async (context, name: string, options: { project?: string }) => {
        const projectId = resolveProject(context, options.project);
        const deleted = await connect(context).integrations.delete({ projectId, name });
        context.output.result(deleted, () => context.output.line(`Deleted integration ${deleted.name}.`));
      }),
    );
}
