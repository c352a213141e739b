import { type EngineStage, engineSecretKey, startEngineStage, testServerUrl } from "@weft/testing";
import pg from "pg";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { defaultAttemptTimeoutMs } from "../src/engine/attempt-timeout.ts";
import { endAttempt } from "../src/engine/attempts/attempt-ending.ts";
import { createBatchedEnds } from "../src/engine/attempts/batched-ends.ts";
import { createBatchedSteps } from "../src/engine/attempts/batched-steps.ts";
import { type AttemptContext, type RunningAttempt, startAttempt } from "../src/engine/attempts/running-attempt.ts";
import { onStep } from "../src/engine/attempts/step-recording.ts";
import { type ClaimedExecution, claim, renewLeases, sleep } from "../src/engine/execution-state/index.ts";
import { waitTokenIssuer } from "../src/engine/wait-token-ids.ts";
import { beat } from "../src/engine/worker-heartbeats.ts";
import { heartbeat } from "../src/engine/worker-leases.ts";

/**
 * A worker's heartbeat, and an attempt's end, among the other statements that change its rows
 * (PostgreSQL only: the interleavings are made by a second connection holding a lock, which one
 * embedded connection cannot). The clock moves only when a test moves it, so no lease lapses on its
 * own.
 */

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [workflow({ name: "plain", async run() { return "done"; } })],
});
`;

const project = "prj_lease_renewal";
const leaseMs = 30_000;
const timeoutPolicy = { defaultTimeoutMs: defaultAttemptTimeoutMs, maxTimeoutMs: undefined };

let stage: EngineStage;
let other: pg.Client;
let workers = 0;

beforeAll(async () => {
  stage = await startEngineStage();
  await stage.deploy(project, source, { version: 1, workflows: [{ name: "plain" }] });
});
afterAll(async () => {
  await stage.stop();
});
beforeEach(async () => {
  other = new pg.Client({ connectionString: stage.database.url });
  await other.connect();
});
afterEach(async () => {
  await other.end();
});

/** A worker id of its own per test, so that no test's leases are another's. */
function newWorkerId(): string {
  workers += 1;
  return `wrk_renewal_${workers}`;
}

/** Claims `count` new executions of `plain` for `workerId`, as its claim loop would. */
async function claimNew(workerId: string, count: number): Promise<ClaimedExecution[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n += 1) ids.push(await stage.run(project, "plain", {}));
  const { executions } = await claim(stage.database.db, {
    workerId,
    now: stage.clock.now(),
    leaseMs,
    limit: count,
    workspaceSlots: 10,
  });
  expect(executions.map((execution) => execution.id).sort()).toEqual(ids.sort());
  return executions;
}

/** What a worker's attempts need of it, on the stage's database; `released` collects the executions let go of. */
function contextOf(workerId: string, released: string[] = []): AttemptContext {
  const db = stage.database.db;
  return {
    db,
    clock: stage.clock,
    logger: stage.logger,
    workerId,
    tokens: waitTokenIssuer({ secretKey: engineSecretKey, baseUrl: "http://localhost:3000" }),
    release: (executionId) => {
      released.push(executionId);
    },
    fallsDue: () => undefined,
    ends: createBatchedEnds(db, workerId, []),
    steps: createBatchedSteps(db, workerId),
    finishing: new Set(),
    stepQuota: undefined,
  };
}

async function leaseExpiryOf(executionId: string): Promise<number | undefined> {
  return (await stage.execution(executionId)).leaseExpiresAt?.getTime();
}

describe.skipIf(testServerUrl() === undefined)("renewing a worker's leases (PostgreSQL only)", () => {
  it("passes over a row another transaction holds, answers it held, and renews it once let go", async () => {
    const workerId = newWorkerId();
    const [execution] = await claimNew(workerId, 1);
    const executionId = execution?.id ?? "";
    const claimedExpiry = await leaseExpiryOf(executionId);
    const expiresAt = new Date(stage.clock.now().getTime() + 2 * leaseMs);
    const request = { workerId, executionIds: [executionId], expiresAt };
    // Held as an end of its child's would hold it: a renewal that waited for it could close a cycle.
    await other.query("begin");
    await other.query("select 1 from executions where id = $1 for update", [executionId]);
    try {
      expect(await renewLeases(stage.database.db, request)).toEqual([{ id: executionId, cancelRequestedAt: null }]);
      expect(await leaseExpiryOf(executionId)).toBe(claimedExpiry);
    } finally {
      await other.query("rollback");
    }
    expect(await renewLeases(stage.database.db, request)).toEqual([{ id: executionId, cancelRequestedAt: null }]);
    expect(await leaseExpiryOf(executionId)).toBe(expiresAt.getTime());
  });

  it("acts on its answer only for the attempts it asked about, not a new attempt of an execution that waited", async () => {
    const workerId = newWorkerId();
    const db = stage.database.db;
    const [napping, watched] = await claimNew(workerId, 2);
    if (napping === undefined || watched === undefined) throw new Error("two executions were claimed");
    const released: string[] = [];
    const context = contextOf(workerId, released);
    const attemptOf = (execution: ClaimedExecution) =>
      startAttempt(execution, undefined, stage.clock.now(), timeoutPolicy);
    const first = attemptOf(napping);
    const running = new Map<string, RunningAttempt>([
      [napping.id, first],
      [watched.id, attemptOf(watched)],
    ]);
    // The first attempt lets go of its worker (as a wait does), still in `running` until its end is answered.
    first.done = true;
    const now = stage.clock.now();
    const close = { now, attemptSpanId: napping.attemptSpanId, attemptStatus: { code: "ok" as const }, logs: [] };
    const nap = { name: "nap", attempt: 1, sequence: 1, wakeAt: now };
    expect(await sleep(db, { executionId: napping.id, workerId }, close, nap)).toBe("taken");
    // The beat's registration waits behind the other connection: the renewal has answered, unheard.
    await beat(db, { workerId, now, expiresAt: new Date(now.getTime() + leaseMs) });
    await other.query("begin");
    await other.query("select 1 from worker_heartbeats where worker_id = $1 for update", [workerId]);
    stage.clock.advance(1_000);
    const renewedUntil = stage.clock.now().getTime() + leaseMs;
    const beating = heartbeat({ db, clock: stage.clock, logger: stage.logger, workerId, leaseMs, running, context });
    try {
      await stage.waitFor(watched.id, (row) => row.leaseExpiresAt?.getTime() === renewedUntil);
      // The execution that let go is claimed again by this worker: a new attempt in `running`.
      const { executions } = await claim(db, {
        workerId,
        now: stage.clock.now(),
        leaseMs,
        limit: 1,
        workspaceSlots: 10,
      });
      expect(executions.map((execution) => execution.id)).toEqual([napping.id]);
      const [woken] = executions;
      if (woken === undefined) throw new Error("the napping execution was claimed again");
      running.set(napping.id, attemptOf(woken));
    } finally {
      await other.query("commit");
    }
    await beating;
    const second = running.get(napping.id);
    expect(second?.done).toBe(false);
    expect(released).toEqual([]);
    // The next beat asks about the new attempt, and renews its lease.
    stage.clock.advance(1_000);
    await heartbeat({ db, clock: stage.clock, logger: stage.logger, workerId, leaseMs, running, context });
    expect(second?.done).toBe(false);
    expect(await leaseExpiryOf(napping.id)).toBe(stage.clock.now().getTime() + leaseMs);
  });
});

describe.skipIf(testServerUrl() === undefined)("an attempt's end among its steps' statements (PostgreSQL only)", () => {
  it("waits for a step's statement under way, so that the step is stored before the execution is let go of", async () => {
    const workerId = newWorkerId();
    const [execution] = await claimNew(workerId, 1);
    if (execution === undefined) throw new Error("an execution was claimed");
    const context = contextOf(workerId);
    // Whether each end was taken while the step's statement still waited: one committed then would
    // let go of the execution before its step is stored, and the next claim would run the step again.
    let stepWaits = true;
    const endsTakenWhileStepWaits: boolean[] = [];
    const ends = context.ends;
    context.ends = (transition, end) => {
      endsTakenWhileStepWaits.push(stepWaits);
      return ends(transition, end);
    };
    const run = startAttempt(execution, undefined, stage.clock.now(), timeoutPolicy);
    // Another transaction inserting the same step holds the worker's statement at its conflict check.
    const blocker = new pg.Client({ connectionString: stage.database.url });
    await blocker.connect();
    try {
      await blocker.query("begin");
      await blocker.query(
        `insert into execution_steps (execution_id, name, kind, result, attempt, started_at, finished_at, logs, sequence)
         values ($1, 'first', 'step', '{}'::jsonb, 1, now(), now(), '[]'::jsonb, 1)`,
        [execution.id],
      );
      const answered = onStep(context, run, {
        type: "step",
        executionId: execution.id,
        sequence: 1,
        name: "first",
        outcome: { ok: true, result: { value: "ran" } },
        durationMs: 1,
        logs: [],
        ahead: true,
      });
      await vi.waitFor(
        async () => {
          const waiting = await blocker.query(
            "select 1 from pg_stat_activity where pg_backend_pid() = any(pg_blocking_pids(pid))",
          );
          expect(waiting.rowCount).toBe(1);
        },
        { timeout: 10_000, interval: 20 },
      );
      // The worker lets go of the execution (as it does when it stops) while the step's statement waits.
      endAttempt(context, run, { kind: "requeue", reason: "the worker stopped" });
      // Whatever the end does without waiting for the database, it has done by the next turn.
      await new Promise((resolve) => setImmediate(resolve));
      stepWaits = false;
      await blocker.query("rollback");
      expect(await answered).toEqual({});
    } finally {
      await blocker.end();
    }
    await Promise.all([...context.finishing]);
    expect(endsTakenWhileStepWaits).toEqual([false]);
    const row = await stage.execution(execution.id);
    expect({ status: row.status, leaseOwner: row.leaseOwner }).toEqual({ status: "queued", leaseOwner: null });
    expect(
      (await other.query("select result from execution_steps where execution_id = $1", [execution.id])).rows,
    ).toEqual([{ result: { value: "ran" } }]);
  });
});
