import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callRpc } from "@weft/testing";
import { describe, expect, it } from "vitest";
import { deployedProject } from "./support/deployed-project.ts";
import { parseJson, runCli, startCli } from "./support/run-cli.ts";
import { signedInPlatform } from "./support/signed-in-platform.ts";

const signedIn = signedInPlatform("logs@example.com", {
  configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
});

const config = `import { defineConfig, workflow } from "@weft/sdk";

const greet = workflow({
  name: "greet",
  async run(input: { name: string }, ctx) {
    ctx.log.info("greeting", { name: input.name });
    const greeting = await ctx.step("compose", async () => \`Hello, \${input.name}!\`);
    return { greeting };
  },
});

const nap = workflow({
  name: "nap",
  async run(_input, ctx) {
    await ctx.sleep("short", "1m");
    ctx.log.info("rested");
  },
});

const flop = workflow({
  name: "flop",
  retries: { maxAttempts: 1 },
  async run() {
    throw new Error("flopped");
  },
});

export default defineConfig({ workflows: [greet, nap, flop] });
`;

const deployed = deployedProject(signedIn, "logs", { "weft.config.ts": config });
const { cli } = deployed;

async function run(workflow: string, input: unknown): Promise<string> {
  // A fresh millisecond of the manual clock for each run, as real time gives.
  signedIn.weft.clock.advance(1000);
  const started = await callRpc(
    signedIn.weft.url,
    "workflows.run",
    { projectId: deployed.projectId, workflow, input },
    { token: signedIn.identity.credential },
  );
  return (started.json as { executionId: string }).executionId;
}

async function waitForStatus(executionId: string, status: string): Promise<void> {
  for (;;) {
    const got = await callRpc(
      signedIn.weft.url,
      "workflows.getExecution",
      { executionId },
      { token: signedIn.identity.credential },
    );
    if ((got.json as { status: string }).status === status) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe("weft logs", { timeout: 120_000 }, () => {
  it("prints an execution's logs and steps, as lines or as one JSON object", async () => {
    const executionId = await run("greet", { name: "Ada" });
    await waitForStatus(executionId, "succeeded");
    const text = await cli(["logs", "--execution", executionId]);
    expect(text.code).toBe(0);
    expect(text.stderr).toBe("");
    const lines = text.stdout.trim().split("\n");
    expect(lines.every((line) => line.includes(`greet ${executionId}  `))).toBe(true);
    expect(lines.map((line) => line.slice(line.indexOf("  ") + 2))).toEqual([
      "queued",
      "attempt 1 started",
      "step compose started",
      expect.stringMatching(/^step compose done \(\d+(\.\d+)?(ms|s)\)$/),
      'info  greeting {"name":"Ada"}',
      expect.stringMatching(/^attempt 1 ended/),
      expect.stringMatching(/^succeeded/),
    ]);

    const json = parseJson<{ events: { kind: string; executionId: string }[]; nextCursor: string }>(
      await cli(["logs", "--execution", executionId, "--json"]),
    );
    expect(json.events.map((event) => event.kind)).toEqual([
      "queued",
      "attempt.started",
      "step.started",
      "step.ended",
      "log",
      "attempt.ended",
      "execution.ended",
    ]);
    const project = parseJson<{ events: { executionId: string }[] }>(await cli(["logs", "--json"]));
    expect(project.events.some((event) => event.executionId === executionId)).toBe(true);
  });

  it("--follow on an execution prints its events as they happen and exits when it ends", async () => {
    const executionId = await run("nap", {});
    await waitForStatus(executionId, "sleeping");
    const following = startCli(["logs", "--execution", executionId, "--follow"], {
      cwd: deployed.directory,
      env: signedIn.env,
    });
    await following.waitFor((output) => output.includes("sleep short until"));
    signedIn.weft.clock.advance(60_000);
    const result = await following.result;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("info  rested");
    expect(result.stdout.trim().split("\n").at(-1)).toContain("succeeded");
  });

  it("--follow on the project streams new executions until Ctrl-C, one JSON object a line under --json", async () => {
    const following = startCli(["logs", "--follow", "--json"], { cwd: deployed.directory, env: signedIn.env });
    // The history is printed first; the stream then takes over where it ended, so none is missed.
    const executionId = await run("greet", { name: "Grace" });
    await following.waitFor((output) =>
      output.split("\n").some((line) => line.includes(`"kind":"execution.ended"`) && line.includes(executionId)),
    );
    following.kill("SIGINT");
    const result = await following.result;
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { id: string; executionId: string });
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    expect(events.filter((event) => event.executionId === executionId)).toHaveLength(7);
  });

  it("fails with the WEFT_TOKEN fix when the platform refuses the credential", async () => {
    const refused = await runCli(["logs", "--follow"], { cwd: deployed.directory, env: signedIn.envWithRefusedToken });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("WEFT_TOKEN");
  });
});

describe("weft dev", { timeout: 240_000 }, () => {
  it("deploys, redeploys on a save of the config or a file it imports, shows errors with file:line, streams logs", async () => {
    const project = mkdtempSync(join(tmpdir(), "weft-dev-"));
    const configWith = (greeting: string) => `import { defineConfig, workflow } from "@weft/sdk";
import { punctuation } from "./words.ts";

export default defineConfig({
  workflows: [
    workflow({
      name: "hello",
      async run(_input, ctx) {
        ctx.log.info("${greeting}" + punctuation);
      },
    }),
  ],
});
`;
    writeFileSync(join(project, "weft.config.ts"), configWith("hello"));
    writeFileSync(join(project, "words.ts"), 'export const punctuation = "!";\n');
    const created = await runCli(["deploy", "--create", "--name", "dev", "--json"], {
      cwd: project,
      env: signedIn.env,
    });
    expect(created.code).toBe(0);
    const devProjectId = parseJson<{ projectId: string }>(created).projectId;

    const running = startCli(["dev"], { cwd: project, env: signedIn.env });
    await running.waitFor((output) => output.includes(`deployed #2 to ${devProjectId}`));

    writeFileSync(join(project, "words.ts"), 'export const punctuation = "?";\n');
    await running.waitFor((output) => output.includes("deployed #3"));

    writeFileSync(join(project, "weft.config.ts"), `${configWith("hi")}\nconst broken = ;\n`);
    await running.waitFor((output) => /not deployed: .*weft\.config\.ts:\d+:\d+/.test(output));

    writeFileSync(join(project, "weft.config.ts"), configWith("welcome"));
    await running.waitFor((output) => output.includes("deployed #4"));

    signedIn.weft.clock.advance(1000);
    const started = await callRpc(
      signedIn.weft.url,
      "workflows.run",
      { projectId: devProjectId, workflow: "hello", input: {} },
      { token: signedIn.identity.credential },
    );
    const executionId = (started.json as { executionId: string }).executionId;
    await running.waitFor((output) => output.includes(`${executionId}  info  welcome?`));
    await running.waitFor((output) => output.includes(`${executionId}  succeeded`));

    running.kill("SIGINT");
    const result = await running.result;
    expect(result.code).toBe(0);
    expect(result.stdout.match(/^deployed /gm)).toHaveLength(3);
    expect(result.stdout.match(/^not deployed: /gm)).toHaveLength(1);
  });
});

describe("weft executions rerun", { timeout: 120_000 }, () => {
  it("re-runs one execution, or every failed one since a moment after a confirmation, with the counts", async () => {
    const failed = [await run("flop", {}), await run("flop", {})];
    for (const executionId of failed) await waitForStatus(executionId, "failed");
    // The platform's clock is the test's manual one: an instant, not a duration back from the real now.
    const since = "2025-12-31T00:00:00Z";

    const unconfirmed = await cli(["executions", "rerun", "--failed", "--since", since, "--workflow", "flop"]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain("needs a confirmation");
    expect(unconfirmed.stderr).toContain("--yes");
    const badSince = await cli(["executions", "rerun", "--failed", "--since", "yesterday", "--yes"]);
    expect(badSince.code).toBe(2);
    expect(badSince.stderr).toContain("--since yesterday is neither a duration nor an instant");
    const nothingNamed = await cli(["executions", "rerun"]);
    expect(nothingNamed.code).toBe(2);

    const bulk = await cli([
      "executions",
      "rerun",
      "--failed",
      "--since",
      since,
      "--workflow",
      "flop",
      "--yes",
      "--json",
    ]);
    expect(bulk.code).toBe(0);
    const outcome = parseJson<{ rerun: { from: string; executionId: string }[]; skipped: unknown[] }>(bulk);
    expect(outcome.rerun.map((entry) => entry.from).sort()).toEqual([...failed].sort());
    expect(outcome.skipped).toEqual([]);
    const text = await cli(["executions", "rerun", "--failed", "--since", since, "--workflow", "greet", "--yes"]);
    expect(text.stdout).toContain("Re-ran 0, skipped 0.");

    const one = await cli(["executions", "rerun", failed[0] ?? "", "--json"]);
    expect(one.code).toBe(0);
    const rerun = parseJson<{ from: string; executionId: string }>(one);
    expect(rerun.from).toBe(failed[0]);
    const execution = await callRpc(
      signedIn.weft.url,
      "workflows.getExecution",
      { executionId: rerun.executionId },
      { token: signedIn.identity.credential },
    );
    expect(execution.json).toMatchObject({ workflow: "flop", rerunOf: failed[0] });
  });

  it("--since <hours> counts back from the real now: a failure inside the window is re-run, older ones are not", async () => {
    const older = await run("flop", {});
    await waitForStatus(older, "failed");
    signedIn.weft.clock.advance(3 * 3_600_000);
    const recent = await run("flop", {});
    await waitForStatus(recent, "failed");
    // The platform's manual clock lags the real one the CLI reads; the window opens 1–2 h before `recent`.
    const hoursBack = Math.ceil((Date.now() - signedIn.weft.clock.now().getTime()) / 3_600_000) + 1;

    const bulk = await cli([
      "executions",
      "rerun",
      "--failed",
      "--since",
      `${hoursBack}h`,
      "--workflow",
      "flop",
      "--yes",
      "--json",
    ]);
    expect(bulk.code, bulk.stderr).toBe(0);
    const outcome = parseJson<{ rerun: { from: string }[]; skipped: unknown[] }>(bulk);
    expect(outcome.rerun.map((entry) => entry.from)).toEqual([recent]);
  });
});
