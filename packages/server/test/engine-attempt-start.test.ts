import { engineSecretKey, startEngineHarness } from "@weft/testing";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { integrationKeyring } from "../src/integrations/secret-sealing.ts";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "greet",
      retries: { maxAttempts: 2, minDelay: "1s", maxDelay: "1s" },
      async run(input: { name: string }, ctx) {
        return await ctx.step("greet", async () => \`hello \${input.name}\`);
      },
    }),
  ],
});
`;
const manifest = {
  version: 1,
  workflows: [{ name: "greet", retries: { maxAttempts: 2, minDelayMs: 1000, maxDelayMs: 1000 } }],
};

// On the embedded database one worker holds every lease, and a worker never takes a lapsed lease
// back from itself: an attempt that could not start and stayed leased waited for a restart.
describe("an attempt whose start fails before its sandbox runs", () => {
  it("fails and is retried by its policy, without quoting the database's error", async () => {
    const engine = await startEngineHarness({ keyring: integrationKeyring({ secretKey: engineSecretKey }) });
    try {
      await engine.deploy("prj_attempt_start", source, manifest);
      // A real failure of the statement that reads the project's integrations.
      await engine.database.db.execute(sql`alter table integrations rename to integrations_away`);
      const id = await engine.run("prj_attempt_start", "greet", { name: "Ada" });
      const retrying = await engine.waitFor(id, (row) => row.status === "queued" && row.attempt === 2);
      expect(retrying.leaseOwner).toBeNull();
      expect(retrying.error).toEqual({
        name: "IntegrationReadError",
        message: "the project's integrations could not be read",
      });

      await engine.database.db.execute(sql`alter table integrations_away rename to integrations`);
      engine.clock.advance(1000);
      await engine.worker.poke();
      const succeeded = await engine.waitFor(id, (row) => row.status === "succeeded");
      expect(succeeded.output).toBe("hello Ada");
    } finally {
      await engine.stop();
    }
  });
});
