import { capturedLogger, createTestDatabase, ensureTestProject, type TestDatabase } from "@weft/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type MeterRow, readMeterRows } from "../src/billing/read-usage.ts";
import { rollUpUsageDeltas } from "../src/billing/usage-roll-up.ts";
import { sqlRows } from "../src/engine/sql-rows.ts";
import { createDeltaRoller, rollUpIntervalMs } from "../src/periodic-jobs/delta-roller.ts";
import { createManualClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";

const projectIds = ["prj_rollup_a", "prj_rollup_b", "prj_rollup_c"];
const kinds = ["webhook", "api"];
/** Deltas start here, 37 s apart, so they fall on several UTC days. */
const firstAt = Date.parse("2026-06-01T22:00:00.000Z");
const spacingMs = 37_000;

let database: TestDatabase;
let workspaceId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  const clock = createManualClock();
  for (const projectId of projectIds)
    await ensureTestProject(database.db, { clock, ids: createIdGenerator(clock) }, projectId);
  const [row] = await sqlRows<{ workspaceId: string }>(
    database.db,
    sql`select workspace_id as "workspaceId" from projects where id = ${projectIds[0]}`,
  );
  workspaceId = row?.workspaceId ?? "";
});
afterAll(() => database.destroy());
beforeEach(async () => {
  await database.db.execute(sql`delete from usage_deltas`);
  await database.db.execute(sql`delete from usage_daily`);
});

/** Appends deltas numbered from `first` as the statements that change executions do, one row each. */
async function appendDeltas(first: number, count: number): Promise<void> {
  await database.db.execute(sql`insert into usage_deltas (project_id, at, trigger_kind, executions, step_ms, bytes)
    select (${JSON.stringify(projectIds)}::jsonb ->> (i % 3)), to_timestamp((${firstAt}::bigint + i * ${spacingMs}::bigint) / 1000.0),
      (${JSON.stringify(kinds)}::jsonb ->> (i % 2)), 1, (i % 7) * 10, i % 100
    from generate_series(${first}::int, ${first + count - 1}::int) i`);
}

/** The meter rows deltas 0 to `count` - 1 must add up to, worked out here rather than by the database. */
function expectedRows(count: number): MeterRow[] {
  const rows = new Map<string, MeterRow>();
  for (let i = 0; i < count; i++) {
    const day = new Date(firstAt + i * spacingMs).toISOString().slice(0, 10);
    const projectId = projectIds[i % 3] ?? "";
    const triggerKind = kinds[i % 2] ?? "";
    const key = `${day} ${projectId} ${triggerKind}`;
    const row = rows.get(key) ?? { day, projectId, triggerKind, executions: 0, stepMs: 0, bytes: 0, events: 0 };
    row.executions += 1;
    row.stepMs += (i % 7) * 10;
    row.bytes += i % 100;
    rows.set(key, row);
  }
  return [...rows.values()].sort((a, b) =>
    `${a.day} ${a.projectId} ${a.triggerKind}`.localeCompare(`${b.day} ${b.projectId} ${b.triggerKind}`),
  );
}

const range = () => ({ workspaceId, fromDay: "2026-06-01", toDay: "2026-06-30" });

async function rolledUpRows(): Promise<MeterRow[]> {
  return sqlRows<MeterRow>(
    database.db,
    sql`select day::text as day, project_id as "projectId", trigger_kind as "triggerKind", executions,
          step_ms::float8 as "stepMs", bytes::float8 as bytes, events
        from usage_daily order by day, project_id, trigger_kind`,
  );
}

async function pendingDeltas(): Promise<number> {
  const [row] = await sqlRows<{ n: number }>(database.db, sql`select count(*)::int as n from usage_deltas`);
  return row?.n ?? 0;
}

describe("rolling up usage deltas", () => {
  it("counts every delta exactly once when roll-ups run at the same time, and readers stay exact throughout", async () => {
    const deltas = 12_000;
    await appendDeltas(0, deltas);
    const expected = expectedRows(deltas);
    expect(expected.length).toBeGreaterThan(projectIds.length * kinds.length);

    let rolling = true;
    const reads: MeterRow[][] = [];
    const reader = (async () => {
      while (rolling) reads.push(await readMeterRows(database.db, range()));
    })();
    // Small batches, so that the roll-ups interleave on PostgreSQL's connections and contend for the same keys.
    const moved = await Promise.all(Array.from({ length: 4 }, () => rollUpUsageDeltas(database.db, 150)));
    rolling = false;
    await reader;

    expect(moved.reduce((a, b) => a + b, 0)).toBe(deltas);
    // They did run side by side: each took a share.
    expect(moved.every((share) => share > 0)).toBe(true);
    expect(await pendingDeltas()).toBe(0);
    expect(await rolledUpRows()).toEqual(expected);
    expect(reads.length).toBeGreaterThan(0);
    for (const read of reads) expect(read).toEqual(expected);
  });

  it("rolls up once the injected clock has moved a full interval since the last pass, and drains the rest", async () => {
    const clock = createManualClock(new Date("2026-06-02T00:00:00.000Z"));
    const roller = createDeltaRoller({
      clock,
      logger: capturedLogger("warn").logger,
      rollUps: [() => rollUpUsageDeltas(database.db)],
    });
    await appendDeltas(0, 10);
    expect(await roller.tick()).toBe(10);

    await appendDeltas(10, 5);
    clock.advance(rollUpIntervalMs - 1);
    expect(await roller.tick()).toBe(0);
    expect(await pendingDeltas()).toBe(5);
    expect(await readMeterRows(database.db, range())).toEqual(expectedRows(15));

    clock.advance(1);
    expect(await roller.tick()).toBe(5);
    await appendDeltas(15, 3);
    expect(await roller.drain()).toBe(3);
    expect(await pendingDeltas()).toBe(0);
    expect(await rolledUpRows()).toEqual(expectedRows(18));
  });
});
