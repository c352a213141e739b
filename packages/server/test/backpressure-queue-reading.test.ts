import {
  createTestDatabase,
  deployTestProject,
  enqueueTestExecution,
  executionPagesReadBy,
  type TestDatabase,
} from "@weft/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBackpressure } from "../src/backpressure/backpressure.ts";
import { queueReadingStatement, readQueue } from "../src/backpressure/queue-reading.ts";
import { sqlRows } from "../src/engine/sql-rows.ts";
import { createManualClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";
import { createLogger } from "../src/shared/logger.ts";
import type { BacklogRefusal } from "../src/shared/service-result.ts";
import { createManualTimers } from "../src/shared/timers.ts";

const clock = createManualClock();
const deps = { clock, ids: createIdGenerator(clock) };
const projectId = "prj_queue_reading";
const manifest = { version: 1, workflows: [{ name: "echo" }, { name: "serial", concurrency: 1 }] };
const maxDelayMs = 5000;

let database: TestDatabase;
let workspaceId: string;
let echo: string;

/** Inserts `count` copies of execution `template` in `status`, ids `prefix` and a number, finished ones finished. */
async function insertCopies(template: string, copies: { prefix: string; count: number; status: string }) {
  await database.db.execute(sql`insert into executions (id, project_id, deployment_id, workflow, status, input, attempt,
      max_attempts, retry_min_delay_ms, retry_max_delay_ms, concurrency_limit, run_at, trigger_kind, trace_id,
      execution_span_id, logs, created_at, finished_at, lease_owner, lease_expires_at)
    select ${copies.prefix} || lpad(g::text, 26 - length(${copies.prefix}), '0'), project_id, deployment_id, workflow,
      ${copies.status}, input, 1, max_attempts, retry_min_delay_ms, retry_max_delay_ms, concurrency_limit, run_at,
      trigger_kind, md5(${copies.prefix} || g), substr(md5('span' || ${copies.prefix} || g), 1, 16), '[]'::jsonb,
      created_at, case when ${copies.status} = 'succeeded' then created_at end,
      case when ${copies.status} = 'running' then 'wrk_reading' end,
      case when ${copies.status} = 'running' then created_at + interval '30 seconds' end
    from executions, generate_series(1, ${copies.count}::int) g where id = ${template}`);
}

/** A reading made at `now`, and the pages of `executions` its scans read, planning's taken off. */
function readingAt(now: Date, slotsPerAccount: number) {
  return database.db.transaction(async (tx) => {
    const { value: reading, pages } = await executionPagesReadBy(
      tx,
      () => readQueue(tx, { now, waitedPastMs: maxDelayMs, slotsPerAccount }),
      queueReadingStatement({ now, waitedPastMs: maxDelayMs, slotsPerAccount }),
    );
    return { reading, pages };
  });
}

/** Backpressure that reads the queue only when refreshed, on a clock and timers of its own that start at `clock`'s now. */
function startManualBackpressure(slotsPerAccount: number) {
  const readingClock = createManualClock(clock.now());
  const timers = createManualTimers();
  const backpressure = startBackpressure(
    { db: database.db, clock: readingClock, logger: createLogger({ level: "silent" }), timers },
    { maxQueueDelaySeconds: maxDelayMs / 1000, slotsPerAccount, intervalMs: undefined },
  );
  return { readingClock, timers, backpressure };
}

describe("the queue's reading, beside 100 000 finished executions and 10 000 queued behind `concurrency: 1`", () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    const deploymentId = await deployTestProject(database.db, deps, { projectId, manifest });
    const enqueue = (workflow: string) =>
      enqueueTestExecution(database.db, deps, { projectId, deploymentId, workflow });
    echo = await enqueue("echo");
    const serial = await enqueue("serial");
    await insertCopies(echo, { prefix: "exe_finished", count: 100_000, status: "succeeded" });
    await insertCopies(serial, { prefix: "exe_serial_queued", count: 10_000, status: "queued" });
    await insertCopies(serial, { prefix: "exe_serial_running", count: 1, status: "running" });
    await insertCopies(echo, { prefix: "exe_echo_queued", count: 200, status: "queued" });
    await database.db.execute(sql`analyze executions`);
    const [project] = await sqlRows<{ workspace_id: string }>(
      database.db,
      sql`select workspace_id from projects where id = ${projectId}`,
    );
    workspaceId = project?.workspace_id ?? "";
  }, 120_000);
  afterAll(async () => {
    await database?.destroy();
  });

  it("is planned on the queue's partial indexes, never a scan of the table", async () => {
    const statement = queueReadingStatement({ now: clock.now(), waitedPastMs: maxDelayMs, slotsPerAccount: 4 });
    const plan = (await sqlRows<{ "QUERY PLAN": string }>(database.db, sql`explain ${statement}`))
      .map((row) => row["QUERY PLAN"])
      .join("\n");
    expect(plan).toContain("executions_ready_idx");
    expect(plan).toContain("executions_limited_groups_idx");
    expect(plan).not.toMatch(/Seq Scan on executions/);
  });

  it("within the bound, counts the ready queue in its pages, never what waits behind a limit", async () => {
    const { reading, pages } = await readingAt(new Date(clock.now().getTime() + maxDelayMs), 4);
    // The 201 queued `echo` executions counted; the 10 000 behind `serial`'s limit are not.
    const queue = { workspaceId, queued: 201, oldestWaitedMs: maxDelayMs };
    expect(reading).toEqual({
      backlogged: new Map(),
      saturatedWaitMs: undefined,
      queues: new Map([[projectId, queue]]),
    });
    expect(pages).toBeLessThan(20);
  });

  it("past the bound, finds the workspace backlogged, saturated only while its account is below its share", async () => {
    const later = new Date(clock.now().getTime() + maxDelayMs + 1);
    const belowShare = await readingAt(later, 4);
    const queues = new Map([[projectId, { workspaceId, queued: 201, oldestWaitedMs: maxDelayMs + 1 }]]);
    const backlogged = new Map([[projectId, maxDelayMs + 1]]);
    expect(belowShare.reading).toEqual({ backlogged, saturatedWaitMs: maxDelayMs + 1, queues });
    // The 201 executions past the bound, in their pages, read again to count them: nothing finished,
    // nothing behind the limit.
    expect(belowShare.pages).toBeLessThan(40);
    const atShare = await readingAt(later, 1);
    expect(atShare.reading).toEqual({ backlogged, saturatedWaitMs: undefined, queues });
  });

  it("admits at once within the bound, and answers a refusal only once its pause has passed", async () => {
    const { readingClock, timers, backpressure } = startManualBackpressure(4);
    try {
      await backpressure.refresh();
      expect(await backpressure.refusal(projectId, 1)).toBeUndefined();
      expect(timers.pending()).toBe(0);

      readingClock.advance(maxDelayMs + 1);
      await backpressure.refresh();
      let answer: BacklogRefusal | undefined | "not yet" = "not yet";
      const refused = backpressure.refusal(projectId, 1).then((refusal) => {
        answer = refusal;
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(answer).toBe("not yet");
      expect(timers.pending()).toBe(1);
      timers.fireAll();
      await refused;
      expect(answer).toMatchObject({ scope: "platform", retryAfterSeconds: maxDelayMs / 1000 });
    } finally {
      await backpressure.stop();
    }
  });

  it("holds a queue that kept the workers busy to as many new executions as left it between two readings", async () => {
    const { readingClock, timers, backpressure } = startManualBackpressure(1);
    // The 201 queued `echo` executions arrived 10 ms apart, from the oldest.
    const arrived = clock.now();
    await database.db.execute(sql`update executions set run_at = ${arrived.toISOString()}::timestamptz
        + (spaced.place * interval '10 milliseconds')
      from (select id, row_number() over (order by id) - 1 as place from executions
        where workflow = 'echo' and status = 'queued') spaced
      where executions.id = spaced.id`);
    try {
      // A first count, with none before to hold it to.
      readingClock.advance(maxDelayMs / 2 + 1);
      await backpressure.refresh();
      expect(await backpressure.refusal(projectId, 5)).toBeUndefined();
      expect(await backpressure.refusal(projectId, 1)).toBeUndefined();
      // The 6 admitted are queued, and the 10 oldest leave the queue, in the 100 ms to the next
      // reading: the head keeps pace, so the predicted wait refuses nothing.
      await insertCopies(echo, { prefix: "exe_echo_admitted", count: 6, status: "queued" });
      await database.db.execute(sql`update executions set run_at = ${readingClock.now().toISOString()}::timestamptz
        where id like 'exe_echo_admitted%'`);
      await database.db.execute(sql`update executions set status = 'succeeded', finished_at = run_at
        where id in (select id from executions where workflow = 'echo' and status = 'queued' order by run_at limit 10)`);
      readingClock.advance(100);
      await backpressure.refresh();
      for (let admission = 0; admission < 10; admission += 1) {
        expect(await backpressure.refusal(projectId, 1)).toBeUndefined();
      }
      const refused = backpressure.refusal(projectId, 1);
      timers.fireAll();
      expect(await refused).toMatchObject({
        scope: "workspace",
        message: expect.stringMatching(/would wait more than 5 s for a worker/),
      });
      expect(timers.pending()).toBe(0);
    } finally {
      await backpressure.stop();
    }
  });
});
