import { type EngineHarness, startEngineHarness } from "@weft/testing";
import { and, eq, inArray, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executions } from "../src/db/schema/index.ts";
import { sqlRows } from "../src/engine/sql-rows.ts";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "per-customer",
      concurrency: { limit: 2, key: "$.customer" },
      async run(input: { customer: string; n: number }, ctx) {
        return ctx.step("work", () => new Promise((resolve) => setTimeout(() => resolve(input.n), 150)));
      },
    }),
  ],
});
`;
const manifest = { version: 1, workflows: [{ name: "per-customer", concurrency: 2, concurrencyKey: "$.customer" }] };

let engine: EngineHarness;

beforeAll(async () => {
  // Ten slots, all of them the account's: only the key's limit holds the executions back.
  engine = await startEngineHarness({ concurrency: 10, workspaceShare: 1 });
  await engine.deploy("prj_keyed_worker", source, manifest);
}, 60_000);
afterAll(async () => {
  await engine?.stop();
});

describe("keyed concurrency on a running worker", () => {
  it("runs at most 2 per customer and 6 in all for 3 customers, and finishes every one", async () => {
    const ids: string[] = [];
    for (let n = 0; n < 5; n += 1) {
      for (const customer of ["acme", "globex", "initech"]) {
        ids.push(await engine.run("prj_keyed_worker", "per-customer", { customer, n }));
      }
    }
    let mostInAll = 0;
    let mostPerCustomer = 0;
    const deadline = Date.now() + 60_000;
    for (;;) {
      const running = await sqlRows<{ customer: string; n: number }>(
        engine.database.db,
        sql`select input->>'customer' as customer, count(*)::int as n from executions
          where project_id = 'prj_keyed_worker' and status = 'running' group by 1`,
      );
      mostInAll = Math.max(
        mostInAll,
        running.reduce((total, row) => total + row.n, 0),
      );
      mostPerCustomer = Math.max(mostPerCustomer, ...running.map((row) => row.n));
      const done = await engine.database.db
        .select({ id: executions.id })
        .from(executions)
        .where(and(inArray(executions.id, ids), eq(executions.status, "succeeded")));
      if (done.length === ids.length) break;
      if (Date.now() > deadline) throw new Error(`${done.length} of ${ids.length} finished`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(mostPerCustomer).toBeLessThanOrEqual(2);
    expect(mostInAll).toBeLessThanOrEqual(6);
    // The limit is what held them: with three customers, more than two ran at once.
    expect(mostInAll).toBeGreaterThan(2);
  }, 90_000);
});
