import type { WeftClient } from "@weft/client";
import { type IntegrationKind, integrationsPageLimit, type Manifest } from "@weft/contract";
import { allPages } from "../all-pages.ts";
import type { CommandContext } from "../context.ts";
import { ask, askSecret } from "../input.ts";

/** The integrations the manifest's workflows read, by name, with the kind each declares. */
export function declaredIntegrations(manifest: Manifest): Map<string, IntegrationKind> {
  const declared = new Map<string, IntegrationKind>();
  for (const workflow of manifest.workflows) {
    for (const [name, kind] of Object.entries(workflow.integrations ?? {})) declared.set(name, kind);
  }
  return declared;
}

/** The declared integrations the project does not have yet: a deployment would be refused for them. */
export async function missingIntegrations(
  client: WeftClient,
  projectId: string,
  manifest: Manifest,
): Promise<Map<string, IntegrationKind>> {
  const declared = declaredIntegrations(manifest);
  if (declared.size === 0) return declared;
  const present = await allPages((after) =>
    client.integrations.list({
      projectId,
      pagination: { first: integrationsPageLimit, ...(after === undefined ? {} : { after }) },
    }),
  );
  for (const integration of present) declared.delete(integration.name);
  return declared;
}

/** The `weft integrations create` that makes one, with placeholders for what only its owner knows. */
export function createCommandFor(name: string, kind: IntegrationKind, projectId: string): string {
  const options = {
    secret: "--kind secret --from-env <VAR>",
    http: "--kind http --base-url <url> [--header <name> --from-env <VAR>]",
    smtp: "--kind smtp --host <host> --port <port> --user <user> --from-env <VAR>",
  }[kind];
  return `weft integrations create ${name} ${options} --project ${projectId}`;
}

/** Creates an integration from answers on the terminal: its settings, then its secrets, hidden. */
export async function createIntegrationInteractively(
  context: CommandContext,
  client: WeftClient,
  target: { projectId: string; name: string; kind: IntegrationKind },
): Promise<void> {
  const { output } = context;
  const { projectId, name, kind } = target;
  const required = (value: string) => (value === "" ? "A value is needed." : undefined);
  if (kind === "secret") {
    const value = await askSecret(output, `Value of the secret "${name}" (hidden)`);
    await client.integrations.create({ projectId, name, kind, secrets: { value } });
    return;
  }
  if (kind === "smtp") {
    const host = await ask(output, { message: `SMTP host of "${name}"`, validate: required });
    const port = await ask(output, {
      message: `SMTP port of "${name}"`,
      placeholder: "587",
      validate: (value) => (/^\d{1,5}$/.test(value) ? undefined : "A port number is needed."),
    });
    const user = await ask(output, { message: `SMTP user of "${name}"`, validate: required });
    const password = await askSecret(output, `SMTP password of "${name}" (hidden)`);
    await client.integrations.create({
      projectId,
      name,
      kind,
      config: { host, port: Number(port), user },
      secrets: { password },
    });
    return;
  }
  const baseUrl = await ask(output, {
    message: `Base URL the workflow's fetch of "${name}" calls under`,
    placeholder: "https://api.example.com",
    validate: (value) => (URL.canParse(value) ? undefined : "An absolute URL is needed."),
  });
  const headerList = await ask(output, {
    message: `Headers of "${name}" whose values are secret, separated by commas (empty for none)`,
    placeholder: "Authorization",
  });
  const secrets: Record<string, string> = {};
  for (const header of headerList.split(",").map((part) => part.trim())) {
    if (header !== "") secrets[header] = await askSecret(output, `Value of the header ${header} (hidden)`);
  }
  await client.integrations.create({ projectId, name, kind, config: { baseUrl }, secrets });
}
