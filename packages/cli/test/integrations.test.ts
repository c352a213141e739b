import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callRpc } from "@weft/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { type CliResult, parseJson, runCli } from "./support/run-cli.ts";
import { signedInPlatform } from "./support/signed-in-platform.ts";

const secrets = {
  fromEnv: "sk_cli_env_0a1b2c3d4e",
  fromFile: "crm-file-token-77aa88bb",
  rotated: "sk_cli_rotated_5f6e7d8c",
};

const signedIn = signedInPlatform("integrations@example.com");
let projectId: string;
let directory: string;

interface IntegrationJson {
  name: string;
  kind: string;
  config: Record<string, unknown>;
  secrets: Record<string, { hint: string }>;
}

beforeAll(async () => {
  const { weft, identity } = signedIn;
  const created = await callRpc(weft.url, "projects.create", { name: "CLI" }, { token: identity.credential });
  projectId = (created.json as { id: string }).id;
  directory = mkdtempSync(join(tmpdir(), "weft-integrations-"));
}, 120_000);

const outputs: CliResult[] = [];
async function cli(args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
  const result = await runCli([...args, "--project", projectId], {
    cwd: directory,
    env: { ...signedIn.env, ...extraEnv },
  });
  outputs.push(result);
  return result;
}

describe("weft integrations", () => {
  it("creates from --from-env and --from-file, and lists hints only", async () => {
    const created = await cli(
      ["integrations", "create", "stripe", "--kind", "secret", "--from-env", "STRIPE_KEY", "--json"],
      {
        STRIPE_KEY: secrets.fromEnv,
      },
    );
    expect(created.code, created.stderr).toBe(0);
    expect(parseJson<IntegrationJson>(created)).toMatchObject({
      name: "stripe",
      secrets: { value: { hint: "••••3d4e" } },
    });

    const file = join(directory, "crm.token");
    writeFileSync(file, `${secrets.fromFile}\n`);
    const http = await cli([
      "integrations",
      "create",
      "crm",
      "--kind",
      "http",
      "--base-url",
      "https://crm.example.com",
      "--header",
      "Authorization",
      "--from-file",
      file,
    ]);
    expect(http.code, http.stderr).toBe(0);
    expect(http.stdout).toContain("secret Authorization");
    expect(http.stdout).toContain("••••88bb");

    const listed = await cli(["integrations", "list"]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/crm\s+http\s+baseUrl=https:\/\/crm.example.com\s+Authorization=••••88bb/);
    expect(listed.stdout).toMatch(/stripe\s+secret\s+-\s+value=••••/);
  }, 120_000);

  it("updates a secret, keeping the others, and deletes", async () => {
    const updated = await cli(["integrations", "update", "stripe", "--secret", "--from-env", "NEW_KEY", "--json"], {
      NEW_KEY: secrets.rotated,
    });
    expect(updated.code, updated.stderr).toBe(0);
    expect(parseJson<IntegrationJson>(updated).secrets.value?.hint).toBe("••••7d8c");
    const moved = await cli(["integrations", "update", "crm", "--base-url", "https://crm.example.com/v2", "--json"]);
    expect(parseJson<IntegrationJson>(moved)).toMatchObject({
      config: { baseUrl: "https://crm.example.com/v2" },
      secrets: { Authorization: { hint: "••••88bb" } },
    });
    const deleted = await cli(["integrations", "delete", "crm"]);
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toContain("Deleted integration crm.");
  }, 120_000);

  it("never takes a value from the command line, and asks for a source when it cannot prompt", async () => {
    const plain = await cli(["integrations", "create", "leak", "--kind", "secret", "--value", "sk_plain_argument"]);
    expect(plain.code).toBe(2);
    const noSource = await cli(["integrations", "create", "quiet", "--kind", "secret", "--json"]);
    expect(noSource.code).toBe(2);
    expect(parseJson<{ error: { message: string; fix: string } }>(noSource).error).toMatchObject({
      message: "no value for value",
      fix: expect.stringContaining("--from-env VAR or --from-file PATH"),
    });
    const unset = await cli(["integrations", "create", "quiet", "--kind", "secret", "--from-env", "NOT_SET_ANYWHERE"]);
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain("NOT_SET_ANYWHERE is not set");
    const refused = await cli(["integrations", "create", "Bad Name", "--kind", "secret", "--from-env", "K"], {
      K: "v",
    });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("integration name");
    const listed = parseJson<{ results: IntegrationJson[] }>(await cli(["integrations", "list", "--json"]));
    expect(listed.results.map((integration) => integration.name)).toEqual(["stripe"]);
  }, 120_000);

  it("weft server rotate-secret-key re-seals what is stored and reports it (an empty embedded database here)", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "weft-rotate-"));
    const result = await runCli(["server", "rotate-secret-key"], {
      env: { WEFT_DATA_DIR: dataDir, WEFT_SECRET_KEY: "7e".repeat(32), WEFT_SECRET_KEY_PREVIOUS: "6d".repeat(32) },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      "Done: every integration secret is sealed under the current key (0 re-sealed), and every alert webhook secret (0 re-sealed).",
    );
    // Creating and migrating the embedded database takes a while on a busy machine.
  }, 240_000);

  it("prints no secret value on any output", () => {
    const everything = outputs.map((result) => result.stdout + result.stderr).join("\n");
    for (const value of Object.values(secrets)) expect(everything).not.toContain(value);
  });
});
