import { type EngineHarness, startEngineHarness, testServerUrl } from "@weft/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sqlRows } from "../src/engine/sql-rows.ts";

const everyClaims = 20;
let engine: EngineHarness;

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [workflow({ name: "one", async run(_input: unknown, ctx) { return ctx.step("one", () => 1); } })],
});
`;

interface TableStats {
  n_dead_tup: number | string;
  vacuumed: boolean;
}

async function executionsStats(): Promise<{ dead: number; vacuumed: boolean }> {
  // Statistics reach the views when the backend flushes them; ask for it first.
  await engine.database.db.execute(sql`select pg_stat_force_next_flush()`);
  const [row] = await sqlRows<TableStats>(
    engine.database.db,
    sql`select n_dead_tup, last_vacuum is not null as vacuumed from pg_stat_user_tables where relname = 'executions'`,
  );
  return { dead: Number(row?.n_dead_tup ?? 0), vacuumed: row?.vacuumed === true };
}

async function runAll(count: number): Promise<void> {
  const ids = await Promise.all(Array.from({ length: count }, () => engine.run("prj_vacuum", "one", {})));
  await Promise.all(ids.map((id) => engine.waitFor(id, (row) => row.status === "succeeded")));
}

// Only the embedded database lacks autovacuum; a PostgreSQL server keeps its own tables.
describe.skipIf(testServerUrl() !== undefined)("the embedded database's upkeep", () => {
  beforeAll(async () => {
    engine = await startEngineHarness({ vacuumEveryClaims: everyClaims });
    await engine.deploy("prj_vacuum", source, { version: 1, workflows: [{ name: "one" }] });
  });
  afterAll(async () => {
    await engine.stop();
  });

  it("vacuums the executions table after every N claims, reclaiming dead row versions and their index entries", async () => {
    await runAll(everyClaims - 1);
    const before = await executionsStats();
    expect(before.vacuumed).toBe(false);
    expect(before.dead).toBeGreaterThanOrEqual(everyClaims - 1);

    await runAll(1);
    let after = await executionsStats();
    while (!after.vacuumed) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = await executionsStats();
    }
    expect(after.dead).toBeLessThan(before.dead);
  });
});
