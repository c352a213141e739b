import { type EngineHarness, startEngineHarness, testServerUrl } from "@weft/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlRows } from "../src/engine/sql-rows.ts";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({ name: "short", async run(input: { n: number }, ctx) {
      return ctx.step("double", () => input.n * 2);
    } }),
    workflow({ name: "one-at-a-time", concurrency: 1, async run(input: { n: number }, ctx) {
      return ctx.step("triple", () => input.n * 3);
    } }),
    workflow({ name: "second-time-lucky", retries: { maxAttempts: 2, minDelay: "0s", maxDelay: "0s" },
      async run(_input: unknown, ctx) {
        if (ctx.execution.attempt === 1) throw new Error("first attempt fails");
        return ctx.execution.attempt;
      } }),
  ],
});
`;
const manifest = {
  version: 1,
  workflows: [
    { name: "short" },
    { name: "one-at-a-time", concurrency: 1 },
    { name: "second-time-lucky", retries: { maxAttempts: 2, minDelayMs: 0, maxDelayMs: 0 } },
  ],
};

let engine: EngineHarness;

/**
 * How often each statement ran, from the embedded database's named statements (PostgreSQL counts
 * every plan it used for one): the claims of the worker, and its reads of concurrency-limited groups.
 */
async function statementRuns(): Promise<{ claims: number; groupReads: number }> {
  const rows = await sqlRows<{ statement: string; runs: number }>(
    engine.database.db,
    sql`select statement, (generic_plans + custom_plans)::int as runs from pg_prepared_statements`,
  );
  const runsOf = (marker: string) =>
    rows.filter((row) => row.statement.includes(marker)).reduce((total, row) => total + row.runs, 0);
  return { claims: runsOf("candidates as ("), groupReads: runsOf("min(e.concurrency_limit)") };
}

// Each statement's runs are counted on the embedded database's one session; PostgreSQL's pool has many.
describe.skipIf(testServerUrl() !== undefined)("claims of the worker (embedded database)", () => {
  beforeAll(async () => {
    // No poll during the test: every claim counted is one the executions themselves started.
    engine = await startEngineHarness({ pollIntervalMs: 3_600_000 });
    await engine.deploy("prj_claims", source, manifest);
  });
  afterAll(async () => {
    await engine.stop();
  });

  it("claims once per short execution when they arrive one at a time", async () => {
    const before = await statementRuns();
    for (let n = 1; n <= 10; n++) {
      const id = await engine.run("prj_claims", "short", { n });
      expect((await engine.waitFor(id, (row) => row.status === "succeeded")).output).toBe(n * 2);
    }
    const after = await statementRuns();
    expect(after.claims - before.claims).toBe(10);
    expect(after.groupReads - before.groupReads).toBe(10);
  });

  it("still starts an execution held back by its workflow's concurrency limit as soon as the one before it ends", async () => {
    const ids = await Promise.all([1, 2, 3].map((n) => engine.run("prj_claims", "one-at-a-time", { n })));
    for (const [index, id] of ids.entries()) {
      expect((await engine.waitFor(id, (row) => row.status === "succeeded")).output).toBe((index + 1) * 3);
    }
  });

  it("runs a retry that is due at once without waiting for a poll: no notification announces it", async () => {
    const id = await engine.run("prj_claims", "second-time-lucky", {});
    expect(await engine.waitFor(id, (row) => row.status === "succeeded")).toMatchObject({ attempt: 2, output: 2 });
  });
});
