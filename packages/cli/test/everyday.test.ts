import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deployedProject } from "./support/deployed-project.ts";
import { parseJson, runCli } from "./support/run-cli.ts";
import { signedInPlatform } from "./support/signed-in-platform.ts";

const signedIn = signedInPlatform("everyday@example.com");

const config = `import { defineConfig, webhook, workflow } from "@weft/sdk";

const greet = workflow({
  name: "greet",
  input: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  async run(input: { name: string }, ctx) {
    const greeting = await ctx.step("compose", async () => \`Hello, \${input.name}!\`);
    return { greeting };
  },
});

const nap = workflow({
  name: "nap",
  async run(_input, ctx) {
    await ctx.step("before", async () => 1);
    await ctx.sleep("long", "1h");
    return "rested";
  },
});

export default defineConfig({
  workflows: [greet, nap],
  forms: [{ name: "contact", workflow: "greet", schema: { type: "object", properties: { name: { type: "string" } } } }],
  webhooks: [webhook({ name: "incoming", workflow: "greet" })],
});
`;

/** A deployed project; commands run in its directory find the pinned project. */
const deployed = deployedProject(signedIn, "everyday", { "weft.config.ts": config });
const { cli } = deployed;

describe("everyday commands", () => {
  it("workflows run + executions watch show a run to completion; get, list and the trace follow it", async () => {
    const workflows = parseJson<{ results: { name: string }[] }>(await cli(["workflows", "list", "--json"]));
    expect(workflows.results.map((workflow) => workflow.name)).toEqual(["greet", "nap"]);

    const started = await cli(["workflows", "run", "greet", "--input", '{"name": "Ada"}', "--json"]);
    expect(started.code).toBe(0);
    const { executionId } = parseJson<{ executionId: string }>(started);

    const watched = await cli(["executions", "watch", executionId]);
    expect(watched.stderr).toBe("");
    expect(watched.code).toBe(0);
    expect(watched.stdout).toContain(`${executionId}  step compose done`);
    expect(watched.stdout).toContain(`${executionId}  succeeded`);
    expect(watched.stdout).toContain('output: {"greeting":"Hello, Ada!"}');

    const execution = parseJson<{ status: string; traceId: string; steps: { name: string }[] }>(
      await cli(["executions", "get", executionId, "--json"]),
    );
    expect(execution).toMatchObject({ status: "succeeded", steps: [{ name: "compose" }] });
    const text = await cli(["executions", "get", executionId]);
    expect(text.stdout).toMatch(/status\s+succeeded/);

    const listed = parseJson<{ results: { id: string }[] }>(
      await cli(["executions", "list", "--workflow", "greet", "--json"]),
    );
    expect(listed.results.map((summary) => summary.id)).toContain(executionId);

    const traces = parseJson<{ data: { traceId: string }[] }>(await cli(["traces", "list", "--json"]));
    expect(traces.data.map((trace) => trace.traceId)).toContain(execution.traceId);
    const tree = await cli(["traces", "get", execution.traceId]);
    expect(tree.code).toBe(0);
    expect(tree.stdout).toMatch(/step compose {2}\d+(ms|\.\d+s) {2}ok/);
    expect(
      parseJson<{ spans: unknown[] }>(await cli(["traces", "get", execution.traceId, "--json"])).spans.length,
    ).toBeGreaterThan(0);
  });

  it("executions list shows the newest first, in the table and under --json, and --before reads the older ones", async () => {
    const started: string[] = [];
    for (const name of ["First", "Second", "Third"]) {
      const run = await cli(["workflows", "run", "greet", "--input", JSON.stringify({ name }), "--watch", "--json"]);
      started.push(parseJson<{ id: string }>(run).id);
    }
    const [first, second, third] = started as [string, string, string];
    const page = parseJson<{ results: { id: string }[]; pagination: { startCursor: string } }>(
      await cli(["executions", "list", "--workflow", "greet", "--limit", "2", "--json"]),
    );
    expect(page.results.map((summary) => summary.id)).toEqual([third, second]);
    const text = await cli(["executions", "list", "--workflow", "greet", "--limit", "2"]);
    const rows = text.stdout.split("\n").filter((line) => line.startsWith("exe_"));
    expect(rows.map((row) => row.split(/\s+/)[0])).toEqual([third, second]);
    expect(text.stdout).toContain(`older: add --before ${page.pagination.startCursor}`);
    const older = parseJson<{ results: { id: string }[] }>(
      await cli(["executions", "list", "--workflow", "greet", "--before", page.pagination.startCursor, "--json"]),
    );
    expect(older.results.map((summary) => summary.id)[0]).toBe(first);
    const help = await cli(["executions", "list", "--help"]);
    expect(help.stdout).toContain("newest first");
  });

  it("workflows run --watch with input from a file, and refuses input that is not JSON as a usage error", async () => {
    writeFileSync(join(deployed.directory, "input.json"), '{"name": "Grace"}');
    const run = await cli(["workflows", "run", "greet", "--input", "@input.json", "--watch", "--json"]);
    expect(run.code).toBe(0);
    expect(parseJson(run)).toMatchObject({ status: "succeeded", output: { greeting: "Hello, Grace!" } });
    const bad = await cli(["workflows", "run", "greet", "--input", "{name: Grace}"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--input is not valid JSON");
  });

  it("executions cancel stops a sleeping execution, and watching it then exits 1", async () => {
    const { executionId } = parseJson<{ executionId: string }>(await cli(["workflows", "run", "nap", "--json"]));
    while (
      parseJson<{ status: string }>(await cli(["executions", "get", executionId, "--json"])).status !== "sleeping"
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const cancelled = await cli(["executions", "cancel", executionId, "--json"]);
    expect(cancelled.code).toBe(0);
    expect(parseJson(cancelled)).toMatchObject({ executionId, status: "cancelled" });
    // Cancelling again is what a retried script does: it succeeds, saying what the execution is.
    const again = await cli(["executions", "cancel", executionId, "--json"]);
    expect(again.code).toBe(0);
    expect(parseJson(again)).toMatchObject({ executionId, status: "cancelled" });
    const watched = await cli(["executions", "watch", executionId, "--json"]);
    expect(watched.code).toBe(1);
    expect(parseJson(watched)).toMatchObject({ id: executionId, status: "cancelled" });
  });

  it("executions cancel of a finished execution fails with the fix of looking at how it ended", async () => {
    const run = await cli(["workflows", "run", "greet", "--input", '{"name":"Ada"}', "--watch", "--json"]);
    const { id } = parseJson<{ id: string; status: string }>(run);
    const refused = await cli(["executions", "cancel", id, "--json"]);
    expect(refused.code).toBe(1);
    expect(parseJson(refused)).toEqual({
      error: {
        code: "conflict",
        message: `${id} has already succeeded; there is nothing left to cancel`,
        fix: `\`weft executions get ${id}\` shows how it ended`,
      },
    });
  });

  it("names WEFT_TOKEN in the fix when the platform refuses the credential it holds", async () => {
    const refused = await runCli(["projects", "list"], { cwd: deployed.directory, env: signedIn.envWithRefusedToken });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("WEFT_TOKEN holds a credential the platform refuses");
    expect(refused.stderr).toContain("unset it");
  });

  it("resources list shows the addresses of the active deployment's forms and webhooks", async () => {
    const resources = await cli(["resources", "list", "--json"]);
    expect(parseJson(resources)).toEqual({
      projectId: deployed.projectId,
      forms: [
        {
          name: "contact",
          workflow: "greet",
          visibility: "public",
          disabled: false,
          pageUrl: `${signedIn.weft.url}/triggers/forms/${deployed.projectId}/contact`,
          url: `${signedIn.weft.url}/forms/contact?projectId=${deployed.projectId}`,
        },
      ],
      webhooks: [
        {
          name: "incoming",
          workflow: "greet",
          secretHeader: null,
          url: `${signedIn.weft.url}/triggers/webhooks/${deployed.projectId}/incoming`,
        },
      ],
    });
    const text = await cli(["resources", "list"]);
    expect(text.stdout).toContain(
      `form page     contact   greet     ${signedIn.weft.url}/triggers/forms/${deployed.projectId}/contact`,
    );
  });

  it("a submitted form's execution can be watched to completion", async () => {
    const response = await fetch(`${signedIn.weft.url}/forms/contact?projectId=${deployed.projectId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "Form" }),
    });
    expect(response.status).toBe(202);
    const { executionIds } = (await response.json()) as { executionIds: string[] };
    const watched = await cli(["executions", "watch", executionIds[0] as string, "--json"]);
    expect(watched.code).toBe(0);
    expect(parseJson(watched)).toMatchObject({ status: "succeeded", output: { greeting: "Hello, Form!" } });
  });

  it("deployments list and rollback by number", async () => {
    const second = await cli(["deploy", "--json"]);
    expect(parseJson(second)).toMatchObject({ deployment: { number: 2 } });
    const listed = parseJson<{ results: { number: number; active: boolean }[] }>(
      await cli(["deployments", "list", "--json"]),
    );
    expect(listed.results.map(({ number, active }) => ({ number, active }))).toEqual([
      { number: 1, active: false },
      { number: 2, active: true },
    ]);
    const rolledBack = await cli(["deployments", "rollback", "1", "--json"]);
    expect(parseJson(rolledBack)).toMatchObject({ number: 1, active: true });
    const missing = await cli(["deployments", "rollback", "9"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("has no deployment #9");
  });

  it("outside a project directory, commands need --project and say so", async () => {
    const elsewhere = await runCli(["workflows", "list"], { cwd: tmpdir(), env: signedIn.env });
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain("--project");
    const withFlag = await runCli(["workflows", "list", "--project", deployed.projectId, "--json"], {
      cwd: tmpdir(),
      env: signedIn.env,
    });
    expect(withFlag.code).toBe(0);
  });
});
