import { latestTick } from "@weft/contract";
import { deployTestProject, serverDatabaseForWorkers, spawnWorker, testServerUrl } from "@weft/testing";
import { eq, sql } from "drizzle-orm";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { executions, schedules, scheduleTicks, workerHeartbeats } from "../src/db/schema/index.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [workflow({ name: "yearly", async run(input: { scheduledFor: string }) { return input.scheduledFor; } })],
});
`;

const serverDatabase = serverDatabaseForWorkers();

/** Polls the database (no timed assertion: the limit only stops a test that would hang). */
async function until<T>(read: () => Promise<T | undefined>, what: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

// Several worker processes need PostgreSQL.
describe.skipIf(testServerUrl() === undefined)(
  "a worker process killed while it fires a schedule (PostgreSQL only)",
  () => {
    it("loses nothing and runs nothing twice: another worker fires the tick once", async () => {
      const database = serverDatabase();
      const { db } = database;
      const deps = { clock: systemClock, ids: createIdGenerator(systemClock) };
      await deployTestProject(db, deps, {
        projectId: "prj_schedulecrash",
        manifest: {
          version: 1,
          workflows: [{ name: "yearly" }],
          schedules: [{ name: "new-year", workflow: "yearly", cron: "0 0 1 1 *" }],
        },
        configSource: source,
      });
      // Nothing is due until the first worker is up: at start it takes over orphaned executions,
      // which the lock below would hold up.
      const notYet = new Date("2100-01-01T00:00:00Z");
      await db.update(schedules).set({ nextRunAt: notYet }).where(eq(schedules.projectId, "prj_schedulecrash"));
      const first = spawnWorker(database.url);
      // A heartbeat renewed past its first lease comes from the poll loop, which starts after the takeover.
      await until(async () => {
        const [beat] = await db
          .select()
          .from(workerHeartbeats)
          .where(sql`${workerHeartbeats.expiresAt} > ${workerHeartbeats.startedAt} + interval '2 seconds'`);
        return beat;
      }, "the first worker's poll loop");

      // Holding inserts into executions off makes the first worker's firing transaction wait after it
      // has claimed the tick and before it commits: the moment it is killed.
      const blocker = new pg.Client({ connectionString: database.url });
      await blocker.connect();
      await blocker.query("begin");
      await blocker.query("lock table executions in exclusive mode");
      // The tick of this past 1 January is due: as if every worker had been down since.
      const tick = latestTick("0 0 1 1 *", "UTC", new Date());
      if (tick === null) throw new Error("no tick");
      await db.update(schedules).set({ nextRunAt: tick }).where(eq(schedules.projectId, "prj_schedulecrash"));
      try {
        await until(async () => {
          const held = await blocker.query(
            "select 1 from pg_locks where relation = 'schedule_ticks'::regclass and mode = 'RowExclusiveLock' and granted and pid <> pg_backend_pid()",
          );
          return held.rowCount === 0 ? undefined : true;
        }, "the first worker to claim the tick");
        first.child.kill("SIGKILL");
        await first.exited;
      } finally {
        await blocker.query("commit");
        await blocker.end();
      }
      // The killed worker's transaction never commits: nothing of it is left.
      await until(async () => {
        const open = await db.execute(
          "select 1 from pg_locks where relation = 'schedule_ticks'::regclass and mode = 'RowExclusiveLock'",
        );
        return (open as unknown as { rows: unknown[] }).rows.length === 0 ? true : undefined;
      }, "the killed worker's transaction to end");
      expect(await db.select().from(scheduleTicks)).toEqual([]);
      expect(await db.select().from(executions)).toEqual([]);

      const second = spawnWorker(database.url);
      try {
        const execution = await until(async () => {
          const [row] = await db.select().from(executions);
          return row?.status === "succeeded" ? row : undefined;
        }, "the second worker to fire and run the tick");
        expect(execution).toMatchObject({
          triggerKind: "schedule",
          triggerName: "new-year",
          input: { scheduledFor: tick.toISOString() },
          output: tick.toISOString(),
        });
        expect(await db.select({ id: executions.id }).from(executions)).toHaveLength(1);
        const ticks = await db.select().from(scheduleTicks);
        expect(ticks).toMatchObject([{ scheduleName: "new-year", scheduledFor: tick, executionId: execution.id }]);
        const [schedule] = await db.select().from(schedules);
        expect(schedule).toMatchObject({ lastExecutionId: execution.id, lastRunAt: tick });
        expect(schedule?.nextRunAt?.getTime()).toBeGreaterThan(Date.now());
      } finally {
        second.child.kill("SIGTERM");
        await second.exited;
      }
    }, 120_000);
  },
);
