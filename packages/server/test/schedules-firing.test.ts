import type { ManifestInput } from "@weft/contract";
import { createTestDatabase, ensureTestProject, type TestDatabase } from "@weft/testing";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { unlimitedPlan } from "../src/billing/plans.ts";
import { type DatabaseHandle, usePostgres } from "../src/db/database.ts";
import { executions, projects, schedules, scheduleTicks } from "../src/db/schema/index.ts";
import { createDeployment } from "../src/deployments/create-deployment.ts";
import { fireDueSchedules } from "../src/schedules/fire-due-schedules.ts";
import { createManualClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";

let database: TestDatabase;
/** A second handle on the same database, as a second worker process has: its own connections on PostgreSQL. */
let secondWorker: DatabaseHandle;
const clock = createManualClock();
const ids = createIdGenerator(clock);
const deps = { clock, ids, catalogue: { plans: [unlimitedPlan], defaultPlan: unlimitedPlan.name } };
const minute = 60_000;
let projectCounter = 0;

beforeAll(async () => {
  database = await createTestDatabase();
  secondWorker = database.url === undefined ? database : await usePostgres(database.url);
});
// Each test's schedules stop with it, so that the next test fires only its own.
afterEach(async () => {
  await database.db.delete(projects);
});
afterAll(async () => {
  if (secondWorker !== database) await secondWorker.close();
  await database.destroy();
});

async function deploySchedules(
  schedulesOfConfig: NonNullable<ManifestInput["schedules"]>,
  projectId = `prj_sched${String(++projectCounter).padStart(22, "0")}`,
): Promise<string> {
  await ensureTestProject(database.db, deps, projectId);
  valueOrThrow(
    await createDeployment(database.db, deps, {
      projectId,
      manifest: { version: 1, workflows: [{ name: "report" }], schedules: schedulesOfConfig },
      bundle: "export default {};",
    }),
  );
  return projectId;
}

async function executionsOf(projectId: string) {
  return database.db
    .select()
    .from(executions)
    .where(eq(executions.projectId, projectId))
    .orderBy(asc(executions.createdAt), asc(executions.id));
}

async function scheduledFor(projectId: string): Promise<string[]> {
  return (await executionsOf(projectId)).map((row) => (row.input as { scheduledFor: string }).scheduledFor);
}

/** Moves the clock from now to `until` in steps of `stepMs`, firing after each step as the worker's poll does. */
async function runUntil(until: string, stepMs: number): Promise<void> {
  const end = new Date(until).getTime();
  while (clock.now().getTime() < end) {
    clock.set(new Date(Math.min(clock.now().getTime() + stepMs, end)));
    await fireDueSchedules(database.db, deps);
  }
}

describe("firing schedules", () => {
  it("starts one execution per tick, of trigger kind schedule, with { scheduledFor, ...input }", async () => {
    clock.set(new Date("2026-02-02T09:58:30Z"));
    const projectId = await deploySchedules([
      { name: "hourly", workflow: "report", cron: "0 * * * *", input: { region: "eu" } },
    ]);
    await fireDueSchedules(database.db, deps);
    expect(await executionsOf(projectId)).toEqual([]);
    await runUntil("2026-02-02T12:30:00Z", 7 * minute);
    const rows = await executionsOf(projectId);
    expect(rows.map((row) => row.input)).toEqual([
      { scheduledFor: "2026-02-02T10:00:00.000Z", region: "eu" },
      { scheduledFor: "2026-02-02T11:00:00.000Z", region: "eu" },
      { scheduledFor: "2026-02-02T12:00:00.000Z", region: "eu" },
    ]);
    expect(rows.every((row) => row.triggerKind === "schedule" && row.triggerName === "hourly")).toBe(true);
    expect(rows.every((row) => row.status === "queued")).toBe(true);
    const [state] = await database.db.select().from(schedules).where(eq(schedules.projectId, projectId));
    expect(state?.lastRunAt?.toISOString()).toBe("2026-02-02T12:00:00.000Z");
    expect(state?.lastExecutionId).toBe(rows[2]?.id);
    expect(state?.nextRunAt?.toISOString()).toBe("2026-02-02T13:00:00.000Z");
  });

  it("after every worker was down, runs one catch-up execution for the latest missed tick, then goes on from now", async () => {
    clock.set(new Date("2026-02-03T00:00:30Z"));
    const projectId = await deploySchedules([{ name: "quarterly", workflow: "report", cron: "*/15 * * * *" }]);
    clock.set(new Date("2026-02-05T10:20:00Z"));
    await fireDueSchedules(database.db, deps);
    await fireDueSchedules(database.db, deps);
    expect(await scheduledFor(projectId)).toEqual(["2026-02-05T10:15:00.000Z"]);
    await runUntil("2026-02-05T10:31:00Z", minute);
    expect(await scheduledFor(projectId)).toEqual(["2026-02-05T10:15:00.000Z", "2026-02-05T10:30:00.000Z"]);
  });

  it("does not fire a schedule deployed with enabled: false, nor one the next deploy removed", async () => {
    clock.set(new Date("2026-02-06T00:00:30Z"));
    const projectId = await deploySchedules([
      { name: "off", workflow: "report", cron: "* * * * *", enabled: false },
      { name: "dropped", workflow: "report", cron: "* * * * *" },
    ]);
    await runUntil("2026-02-06T00:02:00Z", minute);
    expect((await executionsOf(projectId)).map((row) => row.triggerName)).toEqual(["dropped", "dropped"]);
    await deploySchedules([{ name: "off", workflow: "report", cron: "* * * * *", enabled: false }], projectId);
    await runUntil("2026-02-06T00:05:00Z", minute);
    expect(await executionsOf(projectId)).toHaveLength(2);
  });

  describe("across DST changes (America/New_York), following croner's documented rule", () => {
    it("spring forward (2026-03-08, 02:00 → 03:00): a fixed time in the gap runs at 03:00 once; an interval job skips the gap", async () => {
      clock.set(new Date("2026-03-07T12:00:00Z"));
      const projectId = await deploySchedules([
        { name: "fixed", workflow: "report", cron: "30 2 * * *", timezone: "America/New_York" },
        { name: "interval", workflow: "report", cron: "30 * * * *", timezone: "America/New_York" },
      ]);
      await runUntil("2026-03-09T12:00:00Z", 10 * minute);
      const rows = await executionsOf(projectId);
      const ticks = (name: string) =>
        rows
          .filter((row) => row.triggerName === name)
          .map((row) => (row.input as { scheduledFor: string }).scheduledFor);
      // 02:30 does not exist on the 8th: 03:00 EDT (07:00Z) instead; on the 9th, 02:30 EDT (06:30Z).
      expect(ticks("fixed")).toEqual(["2026-03-08T07:00:00.000Z", "2026-03-09T06:30:00.000Z"]);
      const interval = ticks("interval");
      expect(interval).toContain("2026-03-08T06:30:00.000Z"); // 01:30 EST
      expect(interval).toContain("2026-03-08T07:30:00.000Z"); // 03:30 EDT, 02:30 skipped
      expect(interval.filter((tick) => tick.startsWith("2026-03-08T0"))).toEqual([
        "2026-03-08T00:30:00.000Z",
        "2026-03-08T01:30:00.000Z",
        "2026-03-08T02:30:00.000Z",
        "2026-03-08T03:30:00.000Z",
        "2026-03-08T04:30:00.000Z",
        "2026-03-08T05:30:00.000Z",
        "2026-03-08T06:30:00.000Z",
        "2026-03-08T07:30:00.000Z",
        "2026-03-08T08:30:00.000Z",
        "2026-03-08T09:30:00.000Z",
      ]);
      expect(new Set(interval).size).toBe(interval.length);
    });

    it("fall back (2026-11-01, 02:00 → 01:00): a fixed time in the repeated hour runs once; an interval job runs at both", async () => {
      clock.set(new Date("2026-10-31T12:00:00Z"));
      const projectId = await deploySchedules([
        { name: "fixed", workflow: "report", cron: "30 1 * * *", timezone: "America/New_York" },
        { name: "interval", workflow: "report", cron: "30 * * * *", timezone: "America/New_York" },
      ]);
      await runUntil("2026-11-02T12:00:00Z", 10 * minute);
      const rows = await executionsOf(projectId);
      const ticks = (name: string) =>
        rows
          .filter((row) => row.triggerName === name)
          .map((row) => (row.input as { scheduledFor: string }).scheduledFor);
      // 01:30 EDT (05:30Z) runs; 01:30 EST (06:30Z) does not; on the 2nd, 01:30 EST.
      expect(ticks("fixed")).toEqual(["2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"]);
      const interval = ticks("interval");
      expect(interval).toContain("2026-11-01T05:30:00.000Z"); // 01:30 EDT
      expect(interval).toContain("2026-11-01T06:30:00.000Z"); // 01:30 EST
      // The local day of the 1st, 00:00 EDT to 00:00 EST, has 25 hours and 25 ticks.
      expect(interval.filter((tick) => tick >= "2026-11-01T04:00" && tick < "2026-11-02T05:00")).toHaveLength(25);
      expect(new Set(interval).size).toBe(interval.length);
    });
  });

  it("two workers firing at once never fire one tick twice across 1 000 simulated minutes", async () => {
    clock.set(new Date("2026-04-01T00:00:30Z"));
    const projectId = await deploySchedules([
      { name: "every-minute", workflow: "report", cron: "* * * * *" },
      { name: "every-7", workflow: "report", cron: "*/7 * * * *" },
    ]);
    const fired = [];
    for (let step = 0; step < 1000; step += 1) {
      clock.advance(minute);
      const [first, second] = await Promise.all([
        fireDueSchedules(database.db, deps),
        fireDueSchedules(secondWorker.db, deps),
      ]);
      fired.push(...first, ...second);
    }
    const rows = await executionsOf(projectId);
    const everyMinute = rows.filter((row) => row.triggerName === "every-minute");
    const every7 = rows.filter((row) => row.triggerName === "every-7");
    expect(everyMinute).toHaveLength(1000);
    // Minutes 0, 7, … 56 of each hour; the clock starts at 00:00:30, so step m reaches minute m % 60.
    const sevens = Array.from({ length: 1000 }, (_, index) => index + 1).filter((m) => (m % 60) % 7 === 0);
    expect(every7).toHaveLength(sevens.length);
    expect(fired).toHaveLength(rows.length);
    const keys = rows.map((row) => `${row.triggerName} ${(row.input as { scheduledFor: string }).scheduledFor}`);
    expect(new Set(keys).size).toBe(keys.length);
    const ticks = await database.db.select().from(scheduleTicks).where(eq(scheduleTicks.projectId, projectId));
    expect(ticks).toHaveLength(rows.length);
  }, 120_000);

  it("a worker that dies while firing loses nothing and runs nothing twice", async () => {
    clock.set(new Date("2026-05-01T00:00:30Z"));
    const projectId = await deploySchedules([{ name: "nightly", workflow: "report", cron: "0 0 * * *" }]);
    clock.set(new Date("2026-05-02T00:00:01Z"));
    // Dies before its commit: everything it wrote rolls back with it, as when its connection drops.
    await expect(
      database.db.transaction(async (tx) => {
        expect(await fireDueSchedules(tx, deps)).toHaveLength(1);
        throw new Error("worker died");
      }),
    ).rejects.toThrow("worker died");
    expect(await executionsOf(projectId)).toEqual([]);
    // The next worker fires the tick, once.
    expect(await fireDueSchedules(secondWorker.db, deps)).toHaveLength(1);
    expect(await fireDueSchedules(database.db, deps)).toHaveLength(0);
    expect(await scheduledFor(projectId)).toEqual(["2026-05-02T00:00:00.000Z"]);
    // Even a schedule row still pointing at a fired tick (its update lost) cannot fire it again.
    await database.db
      .update(schedules)
      .set({ nextRunAt: new Date("2026-05-02T00:00:00Z") })
      .where(and(eq(schedules.projectId, projectId), eq(schedules.name, "nightly")));
    expect(await fireDueSchedules(database.db, deps)).toHaveLength(0);
    expect(await scheduledFor(projectId)).toEqual(["2026-05-02T00:00:00.000Z"]);
  });
});
