import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestIdentity, startTestPlatform, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJson, runCli } from "./support/run-cli.ts";

let weft: TestPlatform;
let env: Record<string, string>;
let directory: string;

// The throw sits on line 4, column 9 of charge.ts, and the step that calls it on line 9 of the config.
const charge = `export function charge(amount: number): never {
  // A comment and a type keep TypeScript's lines apart from the bundle's.
  const cents: number = Math.round(amount * 100);
  throw new Error(\`card declined for \${cents} cents\`);
}
`;

const config = `import { defineConfig, workflow } from "@weft/sdk";
import { charge } from "./src/charge.ts";
import { refund } from "./workflows/refund.ts";

const pay = workflow({
  name: "pay",
  retries: { maxAttempts: 1 },
  async run(_input, ctx) {
    await ctx.step("charge", async () => charge(12.5));
  },
});

const checkout = workflow({
  name: "checkout",
  retries: { maxAttempts: 1 },
  async run(_input, ctx) {
    await ctx.step("reserve", async () => "held");
    await ctx.step("charge", async () => charge(20));
  },
});

export default defineConfig({ workflows: [pay, checkout, refund] });
`;

// An upstream that answers with a page longer than an error's stored text: the throw sits on line 6, column 9.
const refund = `import { workflow } from "@weft/sdk";

export const refund = workflow({
  name: "refund",
  retries: { maxAttempts: 1 },
  async run() {
    throw new Error(\`the bank answered: \${"<p>busy</p>".repeat(2000)}\`);
  },
});
`;

beforeAll(async () => {
  weft = await startTestPlatform();
  const identity = await createTestIdentity(weft, "locations@example.com");
  env = { WEFT_TOKEN: identity.credential, WEFT_API_URL: weft.url };
  directory = mkdtempSync(join(tmpdir(), "weft-locations-"));
  writeFileSync(join(directory, "weft.config.ts"), config);
  mkdirSync(join(directory, "src"));
  writeFileSync(join(directory, "src", "charge.ts"), charge);
  mkdirSync(join(directory, "workflows"));
  writeFileSync(join(directory, "workflows", "refund.ts"), refund);
  const deployed = await runCli(["deploy", "--create", "--name", "locations", "--json"], { cwd: directory, env });
  expect(deployed.code, deployed.stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await weft?.stop();
});

const cli = (args: string[]) => runCli(args, { cwd: directory, env });

describe("a failure names the line of the person's own source", () => {
  it("in watch, get and logs: src/charge.ts:4:9, not the bundle's line", async () => {
    const started = parseJson<{ executionId: string }>(await cli(["workflows", "run", "pay", "--json"]));
    const watched = await cli(["executions", "watch", started.executionId]);
    expect(watched.code).toBe(1);
    expect(watched.stderr).toContain("card declined for 1250 cents (at src/charge.ts:4:9)");

    const execution = parseJson<{ error: { stack: string } }>(
      await cli(["executions", "get", started.executionId, "--json"]),
    );
    expect(execution.error.stack).toContain("src/charge.ts:4:9");
    expect(execution.error.stack).toContain("weft.config.ts:9:");
    expect(execution.error.stack).not.toContain("/weft/bundle");
    const text = await cli(["executions", "get", started.executionId]);
    expect(text.stdout).toMatch(/error\s+card declined for 1250 cents \(at src\/charge\.ts:4:9\)/);

    const logs = await cli(["logs", "--execution", started.executionId]);
    expect(logs.stdout).toContain("failed: card declined for 1250 cents (at src/charge.ts:4:9)");
  }, 60_000);

  it("in watch and get, after a message longer than an error's stored text: the location comes with the record", async () => {
    const started = parseJson<{ executionId: string }>(await cli(["workflows", "run", "refund", "--json"]));
    const watched = await cli(["executions", "watch", started.executionId]);
    expect(watched.code).toBe(1);
    const failureLine = watched.stderr.split("\n").find((line) => line.includes("error:")) ?? "";
    expect(failureLine).toContain(`execution ${started.executionId} failed: the bank answered: <p>busy</p>`);
    expect(failureLine.endsWith("(at workflows/refund.ts:7:11)")).toBe(true);

    const execution = parseJson<{ error: { location: string | null } }>(
      await cli(["executions", "get", started.executionId, "--json"]),
    );
    expect(execution.error.location).toBe("workflows/refund.ts:7:11");
    const text = await cli(["executions", "get", started.executionId]);
    expect(text.stdout).toMatch(/error\s+the bank answered: .*\(at workflows\/refund\.ts:7:11\)\n/);
  }, 60_000);
});

describe("executions get of a failed execution", () => {
  it("lists the step that failed, with its attempt and error, among the completed ones", async () => {
    const started = parseJson<{ executionId: string }>(await cli(["workflows", "run", "checkout", "--json"]));
    expect((await cli(["executions", "watch", started.executionId])).code).toBe(1);

    const execution = parseJson<{ steps: { name: string }[]; failedSteps: unknown[] }>(
      await cli(["executions", "get", started.executionId, "--json"]),
    );
    expect(execution.steps.map((step) => step.name)).toEqual(["reserve"]);
    expect(execution.failedSteps).toEqual([
      {
        name: "charge",
        attempt: 1,
        startedAt: expect.any(String),
        finishedAt: expect.any(String),
        durationMs: expect.any(Number),
        error: { name: "Error", message: "card declined for 2000 cents" },
      },
    ]);

    const text = await cli(["executions", "get", started.executionId]);
    expect(text.stdout).toMatch(/^STEP\s+KIND\s+ATTEMPT\s+DURATION\s+STATUS\n/m);
    expect(text.stdout).toMatch(/^reserve\s+step\s+1\s+\S+\s+ok\n/m);
    expect(text.stdout).toMatch(/^charge\s+step\s+1\s+\S+\s+failed\n/m);
    expect(text.stdout).toContain("step charge failed in attempt 1: Error: card declined for 2000 cents");
  }, 60_000);
});
