import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTestIdentity, startTestPlatform, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseJson, runCli } from "./support/run-cli.ts";

let weft: TestPlatform;
let env: Record<string, string>;
let directory: string;

// The throw sits on line 4, column 9 of charge.ts, and the step that calls it on line 8 of the config.
const charge = `export function charge(amount: number): never {
  // A comment and a type keep TypeScript's lines apart from the bundle's.
  const cents: number = Math.round(amount * 100);
  throw new Error(\`card declined for \${cents} cents\`);
}
`;

const config = `import { defineConfig, workflow } from "@weft/sdk";
import { charge } from "./src/charge.ts";

const pay = workflow({
  name: "pay",
  retries: { maxAttempts: 1 },
  async run(_input, ctx) {
    await ctx.step("charge", async () => charge(12.5));
  },
});

export default defineConfig({ workflows: [pay] });
`;

beforeAll(async () => {
  weft = await startTestPlatform();
  const identity = await createTestIdentity(weft, "locations@example.com");
  env = { WEFT_TOKEN: identity.credential, WEFT_API_URL: weft.url };
  directory = mkdtempSync(join(tmpdir(), "weft-locations-"));
  writeFileSync(join(directory, "weft.config.ts"), config);
  mkdirSync(join(directory, "src"));
  writeFileSync(join(directory, "src", "charge.ts"), charge);
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
    expect(execution.error.stack).toContain("weft.config.ts:8:");
    expect(execution.error.stack).not.toContain("/weft/bundle");
    const text = await cli(["executions", "get", started.executionId]);
    expect(text.stdout).toMatch(/error\s+card declined for 1250 cents \(at src\/charge\.ts:4:9\)/);

    const logs = await cli(["logs", "--execution", started.executionId]);
    expect(logs.stdout).toContain("failed: card declined for 1250 cents (at src/charge.ts:4:9)");
  }, 60_000);
});
