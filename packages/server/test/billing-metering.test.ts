import {
  deployTestProject,
  serverDatabaseForWorkers,
  spawnWorker,
  type TestDatabase,
  testServerUrl,
} from "@weft/testing";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { type MeterRow, readMeterRows } from "../src/billing/read-usage.ts";
import { createEnqueueBatcher } from "../src/engine/enqueue-batcher.ts";
import { enqueueExecution } from "../src/engine/enqueue-execution.ts";
import { sqlRows } from "../src/engine/sql-rows.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "echo",
      async run(input: { n: number }, ctx) {
        const doubled = await ctx.step("double", async () => input.n * 2);
        const text = await ctx.step("text", async () => "#" + doubled);
        return { doubled, text };
      },
    }),
  ],
});
`;

const webhooks = 1000;
const runs = 200;
const projectId = "prj_metered";
const serverDatabase = serverDatabaseForWorkers();

interface Metered {
  webhook: number;
  api: number;
  stepMs: number;
  bytes: number;
}

/** The project's meters as every reader sees them (the daily meters plus pending deltas). */
async function metered(db: TestDatabase["db"]): Promise<Metered> {
  const [workspace] = await sqlRows<{ id: string }>(
    db,
    sql`select workspace_id as id from projects where id = ${projectId}`,
  );
  const rows = await readMeterRows(db, {
    workspaceId: workspace?.id ?? "",
    fromDay: "2000-01-01",
    toDay: "2999-12-31",
  });
  const mine = rows.filter((row) => row.projectId === projectId);
  const sum = (pick: (row: MeterRow) => number) => mine.reduce((total, row) => total + pick(row), 0);
  return {
    webhook: sum((row) => (row.triggerKind === "webhook" ? row.executions : 0)),
    api: sum((row) => (row.triggerKind === "api" ? row.executions : 0)),
    stepMs: sum((row) => row.stepMs),
    bytes: sum((row) => row.bytes),
  };
}

/** The project's daily meters alone. */
async function rolledUp(db: TestDatabase["db"]): Promise<Metered | undefined> {
  const [row] = await sqlRows<Metered>(
    db,
    sql`select sum(executions) filter (where trigger_kind = 'webhook')::int as webhook,
          sum(executions) filter (where trigger_kind = 'api')::int as api,
          sum(step_ms)::float8 as "stepMs", sum(bytes)::float8 as bytes
        from usage_daily where project_id = ${projectId}`,
  );
  return row;
}

async function finished(db: TestDatabase["db"]): Promise<number> {
  const [row] = await sqlRows<{ n: number }>(
    db,
    sql`select count(*)::int as n from executions where status = 'succeeded'`,
  );
  return row?.n ?? 0;
}

// Several processes writing one database need PostgreSQL.
describe.skipIf(testServerUrl() === undefined)("metering across processes (PostgreSQL only)", () => {
  it("counts a burst of 1 000 webhooks and 200 runs exactly: no double count, no loss, nothing left pending after a clean stop", async () => {
    const database = serverDatabase();
    const { db } = database;
    const deps = { clock: systemClock, ids: createIdGenerator(systemClock) };
    const deploymentId = await deployTestProject(db, deps, {
      projectId,
      manifest: { version: 1, workflows: [{ name: "echo" }] },
      configSource: source,
    });

    const workers = [spawnWorker(database.url), spawnWorker(database.url)];
    try {
      // Two ingress processes' group commits, each batching its share of the burst.
      const batchers = [createEnqueueBatcher({ db, ...deps }), createEnqueueBatcher({ db, ...deps })];
      const request = (n: number) => ({
        projectId,
        deploymentId,
        workflow: "echo",
        input: { n },
        trigger: { kind: "webhook" as const, name: "orders" },
      });
      const burst = Array.from({ length: webhooks }, (_, n) =>
        batchers[n % 2]?.enqueue({ request: request(n), workflow: { name: "echo" } }),
      );
      // Runs with idempotency keys, each sent twice: the repeat names the same execution and is not counted again.
      const keyed = Array.from({ length: runs * 2 }, (_, i) =>
        db.transaction((tx) =>
          enqueueExecution(tx, deps, {
            ...request(i % runs),
            trigger: { kind: "api" },
            idempotencyKey: `run-${i % runs}`,
          }),
        ),
      );
      await Promise.all([...burst, ...keyed]);

      const deadline = Date.now() + 240_000;
      while ((await finished(db)) < webhooks + runs) {
        if (Date.now() > deadline) throw new Error(`only ${await finished(db)} executions finished`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }

      // What the meters must add up to, read from the history itself.
      const [truth] = await sqlRows<{ executions: number; stepMs: number; bytes: number }>(
        db,
        sql`select (select count(*)::int from executions where project_id = ${projectId}) as executions,
              (select sum(greatest(1, ceil(extract(epoch from (end_time - start_time)) * 1000 / 10)) * 10)::float8
                 from spans where project_id = ${projectId} and kind = 'step') as "stepMs",
              (select sum(coalesce(octet_length(input::text), 0) + coalesce(octet_length(output::text), 0))::float8
                 from executions where project_id = ${projectId})
              + (select sum(octet_length(s.result::text))::float8
                 from execution_steps s join executions e on e.id = s.execution_id where e.project_id = ${projectId}) as bytes`,
      );
      expect(truth?.executions).toBe(webhooks + runs);
      const expected = { webhook: webhooks, api: runs, stepMs: truth?.stepMs, bytes: truth?.bytes };
      // Every step counts at least 10 ms.
      expect(truth?.stepMs).toBeGreaterThanOrEqual((webhooks + runs) * 2 * 10);

      // While the workers roll up, the readers add what is still pending.
      expect(await metered(db)).toEqual(expected);

      for (const worker of workers) worker.child.kill("SIGTERM");
      expect(await Promise.all(workers.map((worker) => worker.exited))).toEqual([0, 0]);
      // Stopping cleanly drains the deltas: the daily meters alone are exact.
      expect(await rolledUp(db)).toEqual(expected);
      const [pending] = await sqlRows<{ n: number }>(db, sql`select count(*)::int as n from usage_deltas`);
      expect(pending?.n).toBe(0);
    } finally {
      for (const worker of workers) worker.child.kill("SIGTERM");
      await Promise.all(workers.map((worker) => worker.exited));
    }
  }, 300_000);
});
