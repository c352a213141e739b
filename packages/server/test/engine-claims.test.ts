import {
  createTestDatabase,
  deployTestProject,
  type EngineHarness,
  enqueueTestExecution,
  executionPagesReadBy,
  executionRelations,
  startEngineHarness,
  statementRuns,
  type TestDatabase,
  testServerUrl,
} from "@weft/testing";
import { type SQL, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database, Transaction } from "../src/db/database.ts";
import { claim } from "../src/engine/execution-state/claim.ts";
import { statusAmong, unfinishedCondition } from "../src/engine/execution-state/status-conditions.ts";
import { sqlRows } from "../src/engine/sql-rows.ts";
import { createManualClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";
import { listExecutions } from "../src/workflows/read-executions.ts";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({ name: "short", async run(input: { n: number }, ctx) {
      return ctx.step("double", () => input.n * 2);
    } }),
    workflow({ name: "lingering", async run(input: { n: number }, ctx) {
      return ctx.step("linger", () => new Promise((resolve) => setTimeout(() => resolve(input.n), 200)));
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
    { name: "lingering" },
    { name: "one-at-a-time", concurrency: 1 },
    { name: "second-time-lucky", retries: { maxAttempts: 2, minDelayMs: 0, maxDelayMs: 0 } },
  ],
};

let engine: EngineHarness;

const claimMarker = "candidates as (";

/** How often the worker's claims ran, and its reads of concurrency-limited groups made apart from a claim. */
async function claimRuns(): Promise<{ claims: number; groupReads: number }> {
  return {
    claims: await statementRuns(engine.database.db, claimMarker),
    groupReads: await statementRuns(engine.database.db, "min(concurrency_limit)", claimMarker),
  };
}

/**
 * Entries that scans of the relations `which` selects from `pg_class` have returned so far: those
 * flushed to the statistics and those of the session not flushed yet, so that a flush between two
 * reads changes nothing.
 */
async function entriesRead(db: Database | Transaction, which: SQL): Promise<number> {
  const [row] = await sqlRows<{ entries: number }>(
    db,
    sql`select coalesce(sum(pg_stat_get_tuples_returned(c.oid) + pg_stat_get_xact_tuples_returned(c.oid)), 0)::int
      as entries from pg_class c where ${which}`,
  );
  return row?.entries ?? 0;
}

/** Entries of `executions_ready_idx` that scans have returned so far. */
const readyIndexEntriesRead = (db: Database | Transaction = engine.database.db) =>
  entriesRead(db, sql`c.relname = 'executions_ready_idx'`);

/** Rows of `executions` that sequential scans returned, and entries that any of its indexes did, so far. */
const queueEntriesRead = (db: Database | Transaction) => entriesRead(db, executionRelations);

/** Inserts `count` queued copies of execution `template`, due when it was, ids `prefix` and a number. */
async function insertQueuedCopies(
  db: Database | Transaction,
  template: string,
  copies: { prefix: string; count: number },
): Promise<void> {
  await db.execute(sql`insert into executions (id, project_id, deployment_id, workflow, status, input, attempt,
      max_attempts, retry_min_delay_ms, retry_max_delay_ms, run_at, trigger_kind, trigger_name, trace_id,
      execution_span_id, logs, created_at)
    select ${copies.prefix} || lpad(g::text, 26 - length(${copies.prefix}), '0'), project_id, deployment_id, workflow,
      'queued', input, 1, max_attempts, retry_min_delay_ms, retry_max_delay_ms, run_at, trigger_kind, trigger_name,
      md5(${copies.prefix} || g), substr(md5('span' || ${copies.prefix} || g), 1, 16), '[]'::jsonb, created_at
    from executions, generate_series(1, ${copies.count}::int) g where id = ${template}`);
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

  it("claims once per short execution when they arrive one at a time, reading the limited groups in the claim", async () => {
    const before = await claimRuns();
    for (let n = 1; n <= 10; n++) {
      const id = await engine.run("prj_claims", "short", { n });
      expect((await engine.waitFor(id, (row) => row.status === "succeeded")).output).toBe(n * 2);
    }
    const after = await claimRuns();
    expect(after.claims - before.claims).toBe(10);
    expect(after.groupReads - before.groupReads).toBe(0);
  });

  it("reads the queue without visiting again the entries of executions that ended since the last vacuum", async () => {
    const template = await engine.run("prj_claims", "short", { n: 0 });
    await engine.waitFor(template, (row) => row.status === "succeeded");
    // Each leaves an entry in the index of claimable executions whose row is dead until a vacuum, as
    // every execution that was queued and then claimed does.
    await engine.database.db.transaction(async (tx) => {
      await insertQueuedCopies(tx, template, { prefix: "exe_ended", count: 500 });
      await tx.execute(
        sql`update executions set status = 'succeeded', finished_at = run_at where id like 'exe_ended%'`,
      );
    });
    const first = await engine.run("prj_claims", "short", { n: 1 });
    await engine.waitFor(first, (row) => row.status === "succeeded");
    const before = await readyIndexEntriesRead();
    const second = await engine.run("prj_claims", "short", { n: 2 });
    await engine.waitFor(second, (row) => row.status === "succeeded");
    // A bitmap scan returns all 500 to every claim until the vacuum; an index scan marks them dead once.
    expect((await readyIndexEntriesRead()) - before).toBeLessThan(50);
  });

  it("does not read the queue for a workspace at its share, announced or freed", async () => {
    const before = await claimRuns();
    // Eight slots, four per workspace: the other twenty wait behind the share, and each is announced.
    const ids = await Promise.all(Array.from({ length: 24 }, (_, n) => engine.run("prj_claims", "lingering", { n })));
    for (const id of ids) await engine.waitFor(id, (row) => row.status === "succeeded");
    // Fewer claims than executions: one claim takes the slots freed together. A claim made while the
    // workspace is at its share reads every queued entry and finds nothing; it used to follow each
    // announcement and each claim that filled the share again (30 to 40 claims here).
    expect((await claimRuns()).claims - before.claims).toBeLessThanOrEqual(24);
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

describe.skipIf(testServerUrl() !== undefined)(
  "a claim's read of concurrency-limited groups (embedded database)",
  () => {
    it("reads only the due executions of limited workflows, not a backlog of unlimited ones", async () => {
      const harness = await startEngineHarness();
      try {
        await harness.deploy("prj_group_reads", source, manifest);
        const template = await harness.run("prj_group_reads", "short", { n: 0 });
        await harness.waitFor(template, (row) => row.status === "succeeded");
        // From here on only the claim below reads the queue.
        await harness.worker.stop();
        await insertQueuedCopies(harness.database.db, template, { prefix: "exe_backlog", count: 500 });
        const entriesBefore = await queueEntriesRead(harness.database.db);
        // A share of one cuts the claim to one execution, short of its limit of two, so it reads the limited groups.
        const outcome = await claim(harness.database.db, {
          workerId: "wrk_group_reads",
          now: harness.clock.now(),
          leaseMs: 30_000,
          limit: 2,
          workspaceSlots: 1,
        });
        expect(outcome).toMatchObject({ executions: [{ workflow: "short" }], limitedGroups: 0 });
        // Read anywhere but through the index of due limited executions, the 500 queued ones are all visited.
        expect((await queueEntriesRead(harness.database.db)) - entriesBefore).toBeLessThan(50);
      } finally {
        await harness.stop();
      }
    });

    it("leases a due limited execution in the claim that found no unlimited one", async () => {
      const harness = await startEngineHarness();
      try {
        await harness.deploy("prj_group_claims", source, manifest);
        await harness.worker.stop();
        const id = await harness.run("prj_group_claims", "one-at-a-time", { n: 1 });
        const outcome = await claim(harness.database.db, {
          workerId: "wrk_group_claims",
          now: harness.clock.now(),
          leaseMs: 30_000,
          limit: 2,
          workspaceSlots: 2,
        });
        expect(outcome).toMatchObject({ executions: [{ id, workflow: "one-at-a-time" }], limitedGroups: 1 });
        expect(outcome.executions).toHaveLength(1);
      } finally {
        await harness.stop();
      }
    });
  },
);

describe("the queue's partial indexes, on a database without statistics", () => {
  const clock = createManualClock();
  const deps = { clock, ids: createIdGenerator(clock) };
  const projectId = "prj_unanalysed";
  let database: TestDatabase;
  let template: string;

  // A fresh database each: nothing has analysed its tables. No worker runs its upkeep here, and a
  // server's autovacuum waits for its next round; the planner then guesses a backlog is a row or two.
  beforeEach(async () => {
    database = await createTestDatabase();
    const deploymentId = await deployTestProject(database.db, deps, { projectId, manifest, configSource: source });
    template = await enqueueTestExecution(database.db, deps, {
      projectId,
      deploymentId,
      workflow: "short",
      input: { n: 0 },
    });
  });
  afterEach(async () => {
    await database.destroy();
  });

  it("leases the first of a backlog reading only the entries it leases", async () => {
    await insertQueuedCopies(database.db, template, { prefix: "exe_backlog", count: 2_000 });
    const read = await database.db.transaction(async (tx) => {
      const before = await readyIndexEntriesRead(tx);
      const outcome = await claim(tx, {
        workerId: "wrk_unanalysed",
        now: clock.now(),
        leaseMs: 30_000,
        limit: 5,
        workspaceSlots: 5,
      });
      expect(outcome.executions).toHaveLength(5);
      return (await readyIndexEntriesRead(tx)) - before;
    });
    // A bitmap scan sorted afterwards returns all 2 001 entries to every claim.
    expect(read).toBeLessThan(50);
  });

  it("finds the unfinished executions through those indexes, whatever the history", async () => {
    await insertQueuedCopies(database.db, template, { prefix: "exe_history", count: 50_000 });
    await database.db.execute(
      sql`update executions set status = 'succeeded', finished_at = run_at,
        created_at = created_at - right(id, 5)::int * interval '1 second' where id like 'exe_history%'`,
    );
    // One queued execution of a workflow with a concurrency limit: the other ready index holds it.
    await insertQueuedCopies(database.db, template, { prefix: "exe_limited", count: 1 });
    await database.db.execute(sql`update executions set concurrency_limit = 1 where id like 'exe_limited%'`);
    // Vacuumed and analysed, as the upkeep or autovacuum leave it: without statistics a table this
    // small is read whole.
    await database.db.execute(sql`vacuum analyze executions`);
    // Studio's counts and the meters add the unfinished executions through `unfinishedCondition`,
    // and the list filters by status through `statusAmong`: with each disjunct the predicate of a
    // partial index, the planner reads those indexes, which hold the backlog only. Other plans cost
    // what the project's history costs.
    const conditions = [
      unfinishedCondition,
      statusAmong(["queued"]),
      statusAmong(["sleeping", "waiting"]),
      statusAmong(["running"]),
    ];
    const counted = await database.db.transaction(async (tx) => {
      const found: number[] = [];
      let read = 0;
      for (const condition of conditions) {
        const statement = sql`select count(*)::int as n from executions where ${condition}`;
        const { value: rows, pages } = await executionPagesReadBy(
          tx,
          () => sqlRows<{ n: number }>(tx, statement),
          statement,
        );
        found.push(rows[0]?.n ?? -1);
        read += pages;
      }
      return { found, read };
    });
    expect(counted.found).toEqual([2, 2, 0, 0]);
    // A few pages of each small index; an index of the project's history is hundreds.
    expect(counted.read).toBeLessThan(30);
    const listed = await database.db.transaction(async (tx) => {
      const { value: page, pages } = await executionPagesReadBy(tx, () =>
        listExecutions(tx, {
          projectId,
          status: ["queued"],
          page: { direction: "forward", size: 50, cursor: undefined },
        }),
      );
      return { ids: page.rows.map((row) => row.id), read: pages };
    });
    expect(listed.ids).toEqual([template, "exe_limited000000000000001"].sort());
    // Walking the primary key in order, or the project's index on status, reads the history.
    expect(listed.read).toBeLessThan(60);
  });
});
