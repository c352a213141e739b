import { type EngineHarness, engineSecretKey, startEngineHarness } from "@weft/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { integrationKeyring } from "../src/integrations/secret-sealing.ts";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
const retries = { maxAttempts: 2, minDelay: "1s", maxDelay: "1s" };
export default defineConfig({
  workflows: [
    workflow({
      name: "greet",
      retries,
      async run(input: { name: string }, ctx) {
        return await ctx.step("greet", async () => \`hello \${input.name}\`);
      },
    }),
    workflow({
      name: "greet-later",
      retries,
      async run(input: { name: string }, ctx) {
        const greeting = await ctx.step("greet", async () => \`hello \${input.name}\`);
        await ctx.sleep("nap", "1s");
        return \`\${greeting}, again\`;
      },
    }),
  ],
});
`;
const retries = { maxAttempts: 2, minDelayMs: 1000, maxDelayMs: 1000 };
const manifest = {
  version: 1,
  workflows: [
    { name: "greet", retries },
    { name: "greet-later", retries },
  ],
};

let engine: EngineHarness;
beforeAll(async () => {
  engine = await startEngineHarness({ keyring: integrationKeyring({ secretKey: engineSecretKey }) });
  await engine.deploy("prj_attempt_start", source, manifest);
});
afterAll(async () => {
  await engine.stop();
});

/** A real failure of every statement that reads `table`, until the returned function puts it back. */
async function takeAway(table: string): Promise<() => Promise<void>> {
  await engine.database.db.execute(sql.raw(`alter table ${table} rename to ${table}_away`));
  return async () => {
    await engine.database.db.execute(sql.raw(`alter table ${table}_away rename to ${table}`));
  };
}

// On the embedded database one worker holds every lease, and a worker never takes a lapsed lease
// back from itself: an attempt that could not start and stayed leased waited for a restart.
describe("an attempt whose start fails before its sandbox runs", () => {
  it("fails when the integrations cannot be read, and is retried by its policy", async () => {
    const putBack = await takeAway("integrations");
    const id = await engine.run("prj_attempt_start", "greet", { name: "Ada" });
    const retrying = await engine.waitFor(id, (row) => row.status === "queued" && row.attempt === 2);
    expect(retrying.leaseOwner).toBeNull();
    // Not the database's text, which quotes the statement's parameters.
    expect(retrying.error).toEqual({
      name: "IntegrationReadError",
      message: "the project's integrations could not be read",
    });

    await putBack();
    engine.clock.advance(1000);
    await engine.worker.poke();
    const succeeded = await engine.waitFor(id, (row) => row.status === "succeeded");
    expect(succeeded.output).toBe("hello Ada");
  });

  it("fails when the stored steps of a resumed execution cannot be read, and is retried by its policy", async () => {
    const id = await engine.run("prj_attempt_start", "greet-later", { name: "Grace" });
    await engine.waitFor(id, (row) => row.status === "sleeping");
    const putBack = await takeAway("execution_steps");
    engine.clock.advance(1000);
    await engine.worker.poke();
    const retrying = await engine.waitFor(id, (row) => row.status === "queued" && row.attempt === 2);
    expect(retrying.leaseOwner).toBeNull();
    expect(retrying.error).toEqual({
      name: "HistoryReadError",
      message: "the execution's stored steps could not be read",
    });

    await putBack();
    engine.clock.advance(1000);
    await engine.worker.poke();
    const succeeded = await engine.waitFor(id, (row) => row.status === "succeeded");
    expect(succeeded.output).toBe("hello Grace, again");
  });
});
