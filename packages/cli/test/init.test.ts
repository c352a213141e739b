import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { promisify } from "node:util";
import { createTestIdentity, startTestPlatform } from "@weft/testing";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/project/load-config.ts";
import { parseJson, runCli } from "./support/run-cli.ts";
import { callScaffoldedTriggers } from "./support/scaffold-triggers.ts";

const run = promisify(execFile);

function emptyDir(): string {
  return mkdtempSync(join(tmpdir(), "weft-init-"));
}

/** The `@weft/sdk` dependency `weft init` wrote: a `file:` path to a tarball that exists. */
function sdkTarballOf(directory: string): string {
  const manifest = JSON.parse(readFileSync(join(directory, "package.json"), "utf8")) as {
    dependencies: Record<string, string>;
  };
  const dependency = manifest.dependencies["@weft/sdk"] ?? "";
  expect(dependency).toMatch(/^file:.*\.tgz$/);
  const tarball = dependency.slice("file:".length);
  expect(isAbsolute(tarball) && existsSync(tarball)).toBe(true);
  return tarball;
}

describe("weft init", () => {
  it("scaffolds a project whose config evaluates to a valid manifest with a workflow, a form and a webhook", async () => {
    const directory = emptyDir();
    const result = await runCli(["init"], { cwd: directory });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("weft deploy --create");
    expect(JSON.parse(readFileSync(join(directory, "package.json"), "utf8"))).toMatchObject({
      dependencies: { "@weft/sdk": `file:${sdkTarballOf(directory)}` },
      devDependencies: { typescript: expect.any(String), "@types/node": expect.any(String) },
    });
    expect(existsSync(join(directory, "tsconfig.json"))).toBe(true);
    // The directory has no node_modules: the CLI provides @weft/sdk to the bundle.
    expect(existsSync(join(directory, "node_modules"))).toBe(false);
    const loaded = await loadConfig(join(directory, "weft.config.ts"));
    expect(loaded.manifest.workflows.map((workflow) => workflow.name)).toEqual(["greet", "greet-caller", "welcome"]);
    expect(loaded.manifest.forms.map((form) => form.name)).toEqual(["contact"]);
    expect(loaded.manifest.webhooks.map((webhook) => webhook.name)).toEqual(["incoming"]);
    expect(loaded.bundle).toContain("export");
  });

  it("adds the @weft/sdk dependency to an existing package.json and keeps the rest", async () => {
    const directory = emptyDir();
    writeFileSync(
      join(directory, "package.json"),
      '{\n    "name": "shop",\n    "dependencies": { "left-pad": "1.3.0" }\n}\n',
    );
    const result = await runCli(["init", "--json"], { cwd: directory });
    expect(result.code).toBe(0);
    expect(parseJson(result)).toMatchObject({
      created: [
        "weft.config.ts",
        join("workflows", "greet.ts"),
        join("workflows", "greet-caller.ts"),
        join("workflows", "welcome.ts"),
        "tsconfig.json",
      ],
      updated: ["package.json"],
    });
    expect(JSON.parse(readFileSync(join(directory, "package.json"), "utf8"))).toEqual({
      name: "shop",
      dependencies: { "left-pad": "1.3.0", "@weft/sdk": `file:${sdkTarballOf(directory)}` },
      devDependencies: { "@types/node": expect.any(String), typescript: expect.any(String) },
    });
  });

  it("writes a package.json that installs from here, with the SDK's types: npm install and tsc --noEmit pass", async () => {
    const directory = emptyDir();
    expect((await runCli(["init"], { cwd: directory })).code).toBe(0);
    const { stdout } = await run("tar", ["-xzOf", sdkTarballOf(directory), "package/package.json"]);
    expect(JSON.parse(stdout)).toMatchObject({ name: "@weft/sdk", exports: { ".": { types: "./dist/index.d.ts" } } });
    const env = {
      ...process.env,
      npm_config_prefer_offline: "true",
      npm_config_audit: "false",
      npm_config_fund: "false",
    };
    await run("npm", ["install"], { cwd: directory, env });
    expect(existsSync(join(directory, "node_modules", "@weft", "sdk", "dist", "index.d.ts"))).toBe(true);
    await run(join(directory, "node_modules", ".bin", "tsc"), ["--noEmit"], { cwd: directory });
  }, 120_000);

  it("refuses a package.json that is not JSON, and writes nothing", async () => {
    const directory = emptyDir();
    writeFileSync(join(directory, "package.json"), "{ not json");
    const result = await runCli(["init", "--json"], { cwd: directory });
    expect(result.code).toBe(1);
    expect(parseJson(result)).toMatchObject({ error: { code: "invalid_package_json" } });
    expect(readFileSync(join(directory, "package.json"), "utf8")).toBe("{ not json");
    expect(existsSync(join(directory, "weft.config.ts"))).toBe(false);
    expect(existsSync(join(directory, "workflows"))).toBe(false);
    expect(existsSync(join(directory, "tsconfig.json"))).toBe(false);
  });

  it("refuses to overwrite an existing weft.config.ts, and changes nothing", async () => {
    const directory = emptyDir();
    writeFileSync(join(directory, "weft.config.ts"), "// mine\n");
    const result = await runCli(["init", "--json"], { cwd: directory });
    expect(result.code).toBe(1);
    expect(parseJson(result)).toMatchObject({ error: { code: "already_initialized" } });
    expect(readFileSync(join(directory, "weft.config.ts"), "utf8")).toBe("// mine\n");
    expect(existsSync(join(directory, "workflows"))).toBe(false);
    expect(existsSync(join(directory, "package.json"))).toBe(false);
  });
});

describe("a scaffolded project", () => {
  it("deploys as written, and each of its triggers succeeds when called as the comment beside it says", async () => {
    const weft = await startTestPlatform();
    weft.clock.set(new Date());
    try {
      const identity = await createTestIdentity(weft, "scaffold@example.com");
      const env = { WEFT_TOKEN: identity.credential, WEFT_API_URL: weft.url };
      const directory = emptyDir();
      expect((await runCli(["init"], { cwd: directory })).code).toBe(0);
      const deployed = await runCli(["deploy", "--create", "--name", "scaffold", "--json"], { cwd: directory, env });
      expect(deployed.code, deployed.stderr).toBe(0);
      const { projectId } = parseJson<{ projectId: string }>(deployed);
      await callScaffoldedTriggers(weft.url, projectId, (executionId) =>
        runCli(["executions", "watch", executionId, "--json"], { cwd: directory, env }),
      );
    } finally {
      await weft.stop();
    }
  }, 120_000);
});
