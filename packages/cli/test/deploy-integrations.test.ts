import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseJson, runCli, startCli } from "./support/run-cli.ts";
import { signedInPlatform } from "./support/signed-in-platform.ts";

const signedIn = signedInPlatform("integrations-deployer@example.com");

const configReadingIntegrations = `import { defineConfig, workflow } from "@weft/sdk";

export default defineConfig({
  workflows: [
    workflow({
      name: "charge",
      integrations: { stripe: "secret", crm: "http" },
      async run(_input, ctx) {
        return { tail: ctx.integrations.stripe.slice(-4) };
      },
    }),
  ],
});
`;

/** A project scaffolded by `weft init` whose workflow reads two integrations. */
async function projectReadingIntegrations(name: string): Promise<string> {
  const directory = join(mkdtempSync(join(tmpdir(), "weft-deploy-integrations-")), name);
  expect((await runCli(["init", directory])).code).toBe(0);
  writeFileSync(join(directory, "weft.config.ts"), configReadingIntegrations);
  return directory;
}

function pinnedProjectOf(directory: string): string {
  return /project: "(prj_[0-9a-z]+)"/.exec(readFileSync(join(directory, "weft.config.ts"), "utf8"))?.[1] ?? "";
}

describe("the first deploy of a project whose workflows read integrations", () => {
  it("in a script, creates and pins the project, names the exact commands, and a bare deploy then finishes", async () => {
    const directory = await projectReadingIntegrations("scripted");
    const first = await runCli(["deploy", "--create", "--name", "scripted"], { cwd: directory, env: signedIn.env });
    expect(first.code).toBe(1);
    const projectId = pinnedProjectOf(directory);
    expect(projectId).not.toBe("");
    expect(first.stderr).toContain(
      `the workflows read integrations that project ${projectId} does not have yet: stripe (secret), crm (http)`,
    );
    expect(first.stderr).toContain(
      `\`weft integrations create stripe --kind secret --from-env <VAR> --project ${projectId}\``,
    );
    expect(first.stderr).toContain(
      `\`weft integrations create crm --kind http --base-url <url> [--header <name> --from-env <VAR>] --project ${projectId}\``,
    );
    expect(first.stderr).toContain("then run `weft deploy` again");
    const none = await runCli(["deployments", "list", "--project", projectId, "--json"], { env: signedIn.env });
    expect(parseJson<{ totalCount: number }>(none).totalCount).toBe(0);

    const stripe = await runCli(
      ["integrations", "create", "stripe", "--kind", "secret", "--from-env", "STRIPE_KEY", "--project", projectId],
      { env: { ...signedIn.env, STRIPE_KEY: "sk_test_4242" } },
    );
    expect(stripe.code, stripe.stderr).toBe(0);
    const crm = await runCli(
      [
        "integrations",
        "create",
        "crm",
        "--kind",
        "http",
        "--base-url",
        "https://crm.example.com",
        "--project",
        projectId,
      ],
      { env: signedIn.env },
    );
    expect(crm.code, crm.stderr).toBe(0);
    const second = await runCli(["deploy"], { cwd: directory, env: signedIn.env });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(`Deployed #1 to ${projectId}`);
  });

  it("on a terminal, asks for the integrations and deploys in one go", async () => {
    const directory = await projectReadingIntegrations("terminal");
    const cli = startCli(["deploy", "--create", "--name", "terminal"], {
      cwd: directory,
      env: signedIn.env,
      terminal: true,
    });
    await cli.waitFor((output) => output.includes('Value of the secret "stripe"'));
    cli.write("sk_live_from_terminal\r");
    await cli.waitFor((output) => output.includes('Base URL the workflow\'s fetch of "crm"'));
    cli.write("https://crm.example.com\r");
    await cli.waitFor((output) => output.includes('Headers of "crm"'));
    cli.write("Authorization\r");
    await cli.waitFor((output) => output.includes("Value of the header Authorization"));
    cli.write("Bearer crm-token\r");
    const result = await cli.result;
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toContain("Created the secret integration stripe.");
    expect(result.stdout).toContain("Created the http integration crm.");
    expect(result.stdout).toContain("Deployment #1 is live.");
    expect(result.stdout).not.toContain("sk_live_from_terminal");
    const projectId = pinnedProjectOf(directory);
    const listed = await runCli(["integrations", "list", "--project", projectId, "--json"], { env: signedIn.env });
    expect(
      parseJson<{ results: { name: string }[] }>(listed)
        .results.map((row) => row.name)
        .sort(),
    ).toEqual(["crm", "stripe"]);
  });
});
