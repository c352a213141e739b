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

describe("the queue's reading, beside 100 000 finished executions and 10 000 queued behind `concurrency: 1`", () => {
  beforeAll(async () => {
    database = await createTestDatabase();
    const deploymentId = await deployTestProject(database.db, deps, { projectId, manifest });
    const enqueue = (workflow: string) =>
      enqueueTestExecution(database.db, deps, { projectId, deploymentId, workflow });
    const echo = await enqueue("echo");
    const serial = await enqueue("serial");
    await insertCopies(echo, { prefix: "exe_finished", count: 100_000, status: "succeeded" });
    await insertCopies(serial, { prefix: "exe_serial_queued", count: 10_000, status: "queued" });
    await insertCopies(serial, { prefix: "exe_serial_running", count: 1, status: "running" });
    await insertCopies(echo, { prefix: "exe_echo_queued", count: 200, status: "queued" });
    await database.db.execute(sql`analyze executions`);
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

  it("reads a few pages while the queue is within the bound, however much waits behind a limit", async () => {
    const { reading, pages } = await readingAt(new Date(clock.now().getTime() + maxDelayMs), 4);
    expect(reading).toEqual({ backlogged: new Map(), saturatedWaitMs: undefined });
    expect(pages).toBeLessThan(10);
  });

  it("past the bound, finds the workspace backlogged, saturated only while its account is below its share", async () => {
    const later = new Date(clock.now().getTime() + maxDelayMs + 1);
    const belowShare = await readingAt(later, 4);
    expect(belowShare.reading).toEqual({
      backlogged: new Map([[projectId, maxDelayMs + 1]]),
      saturatedWaitMs: maxDelayMs + 1,
    });
    // The 200 executions past the bound, in their pages: nothing finished, nothing behind the limit.
    expect(belowShare.pages).toBeLessThan(30);
    const atShare = await readingAt(later, 1);
    expect(atShare.reading).toEqual({ backlogged: new Map([[projectId, maxDelayMs + 1]]), saturatedWaitMs: undefined });
  });

  it("admits at once within the bound, and answers a refusal only once its pause has passed", async () => {
    const readingClock = createManualClock(clock.now());
    const timers = createManualTimers();
    const backpressure = startBackpressure(
      { db: database.db, clock: readingClock, logger: createLogger({ level: "silent" }), timers },
      { maxQueueDelaySeconds: maxDelayMs / 1000, slotsPerAccount: 4, intervalMs: undefined },
    );
    try {
      await backpressure.refresh();
      expect(await backpressure.refusal(projectId)).toBeUndefined();
      expect(timers.pending()).toBe(0);

      readingClock.advance(maxDelayMs + 1);
      await backpressure.refresh();
      let answer: BacklogRefusal | undefined | "not yet" = "not yet";
      const refused = backpressure.refusal(projectId).then((refusal) => {
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
});
