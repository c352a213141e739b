import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseJson, runCli } from "./support/run-cli.ts";
import { signedInPlatform } from "./support/signed-in-platform.ts";

const signedIn = signedInPlatform("deployer@example.com");

/** A fresh directory scaffolded by `weft init`, with a comment of the user's own in the config. */
async function freshProject(name: string): Promise<string> {
  const directory = join(mkdtempSync(join(tmpdir(), "weft-deploy-")), name);
  const init = await runCli(["init", directory]);
  expect(init.code).toBe(0);
  const path = join(directory, "weft.config.ts");
  writeFileSync(path, `// My own comment, which must survive.\n${readFileSync(path, "utf8")}`);
  return directory;
}

/** Adds `alerts` (the array, as TypeScript source) to the config of a project made by `freshProject`. */
function addAlerts(directory: string, alerts: string): string {
  const path = join(directory, "weft.config.ts");
  const config = readFileSync(path, "utf8");
  writeFileSync(
    path,
    config.replace("export default defineConfig({\n", `export default defineConfig({\n  alerts: ${alerts},\n`),
  );
  return path;
}

async function countRows(table: "projects" | "deployments"): Promise<number> {
  const result = await signedIn.weft.database.db.execute(`select count(*)::int as count from ${table}`);
  const rows = (result as unknown as { rows: { count: number }[] }).rows;
  return rows[0]?.count ?? 0;
}

describe("weft deploy", () => {
  it("refuses a config with an invalid definition, naming the file and the definition, and uploads nothing", async () => {
    const directory = await freshProject("broken");
    const path = join(directory, "weft.config.ts");
    const broken = readFileSync(path, "utf8").replace(
      'workflow: "greet",\n      title',
      'workflow: "nope",\n      title',
    );
    writeFileSync(path, broken);
    const before = { projects: await countRows("projects"), deployments: await countRows("deployments") };
    const result = await runCli(["deploy", "--create", "--name", "broken"], { cwd: directory, env: signedIn.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'weft.config.ts: forms[contact].workflow: form "contact" names the workflow "nope"',
    );
    expect(result.stderr).toContain("nothing was uploaded");
    expect({ projects: await countRows("projects"), deployments: await countRows("deployments") }).toEqual(before);
    expect(readFileSync(path, "utf8")).toBe(broken);
  });

  it("without a pinned project, --project or --create, fails on a non-terminal naming both flags", async () => {
    const directory = await freshProject("unpinned");
    const result = await runCli(["deploy"], { cwd: directory, env: signedIn.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--project");
    expect(result.stderr).toContain("--create");
  });

  it("outside a project, says to run weft init", async () => {
    const result = await runCli(["deploy", "--json"], {
      cwd: mkdtempSync(join(tmpdir(), "weft-empty-")),
      env: signedIn.env,
    });
    expect(result.code).toBe(1);
    expect(parseJson(result)).toMatchObject({
      error: { code: "no_config", fix: expect.stringContaining("weft init") },
    });
  });

  it("rejects --project with --create, and --name without --create, as usage errors", async () => {
    const directory = await freshProject("flags");
    expect(
      (await runCli(["deploy", "--project", "prj_x", "--create"], { cwd: directory, env: signedIn.env })).code,
    ).toBe(2);
    expect((await runCli(["deploy", "--name", "x"], { cwd: directory, env: signedIn.env })).code).toBe(2);
  });

  it("--create creates the project, pins its id into weft.config.ts keeping everything else, and a bare deploy reuses it", async () => {
    const directory = await freshProject("shop");
    const path = join(directory, "weft.config.ts");
    const original = readFileSync(path, "utf8");

    const first = await runCli(["deploy", "--create", "--name", "x"], { cwd: directory, env: signedIn.env });
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const projectId = /Created project (prj_[0-9a-z]+)/.exec(first.stdout)?.[1] as string;
    expect(projectId).toBeDefined();
    expect(first.stdout).toContain("Deployment #1 is live.");
    expect(first.stdout).toContain(`page  ${signedIn.weft.url}/triggers/forms/${projectId}/contact`);
    expect(first.stdout).toContain(`POST  ${signedIn.weft.url}/forms/contact?projectId=${projectId}`);
    expect(first.stdout).toContain(`POST  ${signedIn.weft.url}/triggers/webhooks/${projectId}/incoming`);
    expect(readFileSync(path, "utf8")).toBe(
      original.replace(
        "export default defineConfig({\n",
        `export default defineConfig({\n  project: "${projectId}",\n`,
      ),
    );
    const project = parseJson<{ name: string }>(
      await runCli(["projects", "get", projectId, "--json"], { env: signedIn.env }),
    );
    expect(project.name).toBe("x");

    const second = await runCli(["deploy", "--json"], { cwd: directory, env: signedIn.env });
    expect(second.code).toBe(0);
    expect(parseJson(second)).toMatchObject({
      projectId,
      projectCreated: false,
      pinned: false,
      deployment: { number: 2 },
      workflows: ["greet", "greet-caller", "welcome"],
      forms: [
        {
          name: "contact",
          pageUrl: `${signedIn.weft.url}/triggers/forms/${projectId}/contact`,
          url: `${signedIn.weft.url}/forms/contact?projectId=${projectId}`,
        },
      ],
      webhooks: [{ name: "incoming", url: `${signedIn.weft.url}/triggers/webhooks/${projectId}/incoming` }],
    });
    const again = await runCli(["deploy", "--create", "--name", "ignored", "--json"], {
      cwd: directory,
      env: signedIn.env,
    });
    expect(parseJson(again)).toMatchObject({ projectId, projectCreated: false, deployment: { number: 3 } });
  });

  it("--project deploys to another project and leaves the pinned one in the file", async () => {
    const directory = await freshProject("elsewhere");
    await runCli(["deploy", "--create"], { cwd: directory, env: signedIn.env });
    const path = join(directory, "weft.config.ts");
    const pinned = readFileSync(path, "utf8");
    const other = parseJson<{ id: string }>(
      await runCli(["projects", "create", "other", "--json"], { env: signedIn.env }),
    );
    const result = await runCli(["deploy", "--project", other.id, "--json"], { cwd: directory, env: signedIn.env });
    expect(result.code).toBe(0);
    expect(parseJson(result)).toMatchObject({ projectId: other.id, deployment: { number: 1 } });
    expect(readFileSync(path, "utf8")).toBe(pinned);
  });

  it("names the directory's project after the directory when --create has no --name", async () => {
    const directory = await freshProject("named-after-dir");
    const result = parseJson<{ projectId: string }>(
      await runCli(["deploy", "--create", "--json"], { cwd: directory, env: signedIn.env }),
    );
    const project = parseJson<{ name: string }>(
      await runCli(["projects", "get", result.projectId, "--json"], { env: signedIn.env }),
    );
    expect(project.name).toBe("named-after-dir");
  });

  it("prints a webhook alert's signing secret once, on the deploy that first names its URL", async () => {
    const directory = await freshProject("alerted");
    const path = addAlerts(
      directory,
      '[{ on: "failed", mail: ["ops@example.com"] }, { on: "failed", webhook: "https://hooks.example.com/first" }]',
    );
    const first = await runCli(["deploy", "--create"], { cwd: directory, env: signedIn.env });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("alert webhook https://hooks.example.com/first");
    const secret = /signing secret {2}(whsec_[A-Za-z0-9_-]{43})/.exec(first.stdout)?.[1];
    expect(secret).toBeDefined();

    writeFileSync(path, readFileSync(path, "utf8").replace("hooks.example.com/first", "hooks.example.com/second"));
    const second = parseJson<{ alertSecrets?: { url: string; secret: string }[] }>(
      await runCli(["deploy", "--json"], { cwd: directory, env: signedIn.env }),
    );
    expect(second.alertSecrets).toEqual([
      { url: "https://hooks.example.com/second", secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/) },
    ]);
    expect(second.alertSecrets?.[0]?.secret).not.toBe(secret);

    const third = await runCli(["deploy"], { cwd: directory, env: signedIn.env });
    expect(third.code).toBe(0);
    expect(third.stdout).not.toContain("signing secret");
    expect(third.stdout).not.toContain("whsec_");
  }, 120_000);

  it("refuses a bad alert before uploading, naming the alert", async () => {
    const directory = await freshProject("bad-alert");
    addAlerts(directory, '[{ on: "failed", webhook: "ftp://example.com/drop" }]');
    const before = await countRows("deployments");
    const result = await runCli(["deploy", "--create"], { cwd: directory, env: signedIn.env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'weft.config.ts: alerts[0].webhook: alert 1 (webhook): "ftp://example.com/drop" is not an http(s) URL',
    );
    expect(await countRows("deployments")).toBe(before);
  });
});
