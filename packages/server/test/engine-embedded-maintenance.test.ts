import { type EngineHarness, startEngineHarness, testServerUrl } from "@weft/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextPassAt } from "../src/engine/embedded-maintenance.ts";
import { sqlRows } from "../src/engine/sql-rows.ts";

const everyClaims = 20;

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [workflow({ name: "one", async run(_input: unknown, ctx) { return ctx.step("one", () => 1); } })],
});
`;

interface Upkeep {
  /** Dead row versions in `executions`. */
  dead: number;
  /** Vacuums of the table the upkeep takes last: one more means a pass has ended. */
  vacuums: number;
  analyses: number;
  /** Bounds in the histogram of `executions.created_at`: one more than the statistics target at most. */
  histogramBounds: number;
}

async function executionsUpkeep(engine: EngineHarness): Promise<Upkeep> {
  // Statistics reach the views when the backend flushes them; ask for it first.
  await engine.database.db.execute(sql`select pg_stat_force_next_flush()`);
  const [row] = await sqlRows<{ dead: number; vacuums: number; analyses: number; bounds: number | null }>(
    engine.database.db,
    sql`select n_dead_tup::int as dead, analyze_count::int as analyses,
        (select vacuum_count::int from pg_stat_user_tables where relname = 'execution_counts') as vacuums,
        (select array_length(histogram_bounds::text::text[], 1) from pg_stats
          where tablename = 'executions' and attname = 'created_at') as bounds
      from pg_stat_user_tables where relname = 'executions'`,
  );
  return {
    dead: row?.dead ?? 0,
    vacuums: row?.vacuums ?? 0,
    analyses: row?.analyses ?? 0,
    histogramBounds: row?.bounds ?? 0,
  };
}

async function nextVacuum(engine: EngineHarness, before: Upkeep): Promise<Upkeep> {
  let after = await executionsUpkeep(engine);
  while (after.vacuums === before.vacuums) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    after = await executionsUpkeep(engine);
  }
  return after;
}

async function runAll(engine: EngineHarness, count: number): Promise<void> {
  const ids = await Promise.all(Array.from({ length: count }, () => engine.run("prj_vacuum", "one", {})));
  await Promise.all(ids.map((id) => engine.waitFor(id, (row) => row.status === "succeeded")));
}

// Only the embedded database lacks autovacuum; a PostgreSQL server keeps its own tables.
describe("the upkeep's passes", () => {
  it("come at doubling claim counts from the first, then every N claims", () => {
    const passes = [0];
    while (passes.length < 9) passes.push(nextPassAt(passes.at(-1) ?? 0, 1000));
    expect(passes.slice(1)).toEqual([50, 100, 200, 400, 800, 1600, 2600, 3600]);
    expect(nextPassAt(0, 20)).toBe(20);
    expect(nextPassAt(20, 20)).toBe(40);
    expect(nextPassAt(40, 20)).toBe(60);
    // A pass that a running one delayed counts from where it ran.
    expect(nextPassAt(1003, 1000)).toBe(2003);
  });
});

describe.skipIf(testServerUrl() !== undefined)("the embedded database's first upkeep pass", () => {
  let engine: EngineHarness;
  beforeAll(async () => {
    engine = await startEngineHarness();
    await engine.deploy("prj_vacuum", source, { version: 1, workflows: [{ name: "one" }] });
  });
  afterAll(async () => {
    await engine.stop();
  });

  it("analyzes a fresh database's growing tables after 50 claims, not 1 000, so that its plans stop reading them as empty", async () => {
    const start = await executionsUpkeep(engine);
    expect(start.analyses).toBe(0);
    await runAll(engine, 50);
    const after = await nextVacuum(engine, start);
    expect(after.analyses).toBe(1);
    const [spans] = await sqlRows<{ analyses: number }>(
      engine.database.db,
      sql`select analyze_count::int as analyses from pg_stat_user_tables where relname = 'spans'`,
    );
    expect(spans?.analyses).toBe(1);
  });
});

describe.skipIf(testServerUrl() !== undefined)("the embedded database's upkeep", () => {
  let engine: EngineHarness;
  beforeAll(async () => {
    engine = await startEngineHarness({ vacuumEveryClaims: everyClaims });
    await engine.deploy("prj_vacuum", source, { version: 1, workflows: [{ name: "one" }] });
  });
  afterAll(async () => {
    await engine.stop();
  });

  it("vacuums the executions table after every N claims, reclaiming dead row versions and their index entries", async () => {
    await runAll(engine, everyClaims - 1);
    const before = await executionsUpkeep(engine);
    expect(before.vacuums).toBe(0);
    expect(before.dead).toBeGreaterThanOrEqual(everyClaims - 1);

    await runAll(engine, 1);
    const after = await nextVacuum(engine, before);
    expect(after.dead).toBeLessThan(before.dead);
  });

  it("analyzes the executions table from a small sample, and only once a tenth of its rows changed since the last analysis", async () => {
    const [template] = await sqlRows<{ id: string }>(
      engine.database.db,
      sql`select id from executions where project_id = 'prj_vacuum' limit 1`,
    );
    // A history of 2 000 executions, one second apart, that the next vacuum finds changed.
    await engine.database.db.execute(sql`insert into executions (id, project_id, deployment_id, workflow, status,
        input, attempt, max_attempts, retry_min_delay_ms, retry_max_delay_ms, run_at, trigger_kind, trigger_name,
        trace_id, execution_span_id, logs, created_at, finished_at)
      select 'exe_history' || lpad(g::text, 15, '0'), project_id, deployment_id, workflow, 'succeeded', input, 1,
        max_attempts, retry_min_delay_ms, retry_max_delay_ms, run_at, trigger_kind, trigger_name, md5('history' || g),
        substr(md5('span' || g), 1, 16), '[]'::jsonb, created_at - g * interval '1 second', created_at
      from executions, generate_series(1, 2000) g where id = ${template?.id ?? ""}`);
    const start = await executionsUpkeep(engine);
    await runAll(engine, everyClaims);
    const analyzed = await nextVacuum(engine, start);
    expect(analyzed.analyses).toBe(start.analyses + 1);
    expect(analyzed.histogramBounds).toBeGreaterThan(1);
    expect(analyzed.histogramBounds).toBeLessThanOrEqual(11);

    // Twenty executions (inserted, leased, ended) make well under the 250 changes that a tenth of
    // 2 000 rows and the floor ask for: vacuumed, not analyzed again.
    await runAll(engine, everyClaims);
    const vacuumed = await nextVacuum(engine, analyzed);
    expect(vacuumed.analyses).toBe(analyzed.analyses);
  });

  it("keeps the engine's statements on generic plans through the analyses, never planning them per execution", async () => {
    await runAll(engine, everyClaims);
    const statements = await sqlRows<{ statement: string; generic: number; custom: number }>(
      engine.database.db,
      sql`select statement, generic_plans::int as generic, custom_plans::int as custom from pg_prepared_statements`,
    );
    const engineStatements = [
      "candidates as (",
      "changed as (update executions",
      "owner as (select id, cancel_requested_at from executions",
    ].map((opening) => statements.filter((entry) => entry.statement.includes(opening)));
    for (const kind of engineStatements) {
      expect(kind.length).toBeGreaterThan(0);
      for (const entry of kind) expect(entry).toMatchObject({ custom: 0 });
    }
  });
});
