import { bundleConfig, createTestDatabase, ensureTestProject, type TestDatabase } from "@weft/testing";
import { desc, eq, inArray, sql, TransactionRollbackError } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { Database } from "../src/db/database.ts";
import {
  executionCountDeltas,
  executionSteps,
  executions,
  spans,
  usageDeltas,
  waitTokens,
} from "../src/db/schema/index.ts";
import { createDeployment } from "../src/deployments/create-deployment.ts";
import { enqueueExecution, insertNewExecutions, queuedExecutionRows } from "../src/engine/enqueue-execution.ts";
import {
  type AttemptClose,
  cancel,
  claim,
  claimTransitions,
  type ExecutionState,
  endAttempts,
  executionStates,
  fail,
  isAllowed,
  isFinal,
  type Lease,
  leasedState,
  recordStep,
  sleep,
  succeed,
  type TransitionName,
  transitionNames,
  transitions,
  wait,
} from "../src/engine/execution-state/index.ts";
import { startLocally } from "../src/engine/execution-state/local-start.ts";
import { insertSpans, spansFromJson } from "../src/engine/execution-state/span-writes.ts";
import { jsonParam, sqlRows } from "../src/engine/sql-rows.ts";
import { newSpanId } from "../src/engine/trace-ids.ts";
import { endStatementParts } from "../src/engine-features.ts";
import { createManualClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";

/**
 * Walks the transition table against the database: from every state, every transition is taken
 * if the table allows it and refused, with the row unchanged, if not.
 */

const clock = createManualClock();
const ids = createIdGenerator(clock);
let database: TestDatabase;
let deploymentId: string;
const projectId = "prj_states";
const holder = "wrk_holder";
const taker = "wrk_taker";
const leaseMs = 30_000;

beforeAll(async () => {
  database = await createTestDatabase();
  await ensureTestProject(database.db, { clock, ids }, projectId);
  const bundle = await bundleConfig(`
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({ workflows: [workflow({ name: "w", async run() { return 1; } })] });
`);
  const manifest = { version: 1, workflows: [{ name: "w" }] };
  deploymentId = valueOrThrow(await createDeployment(database.db, { clock, ids }, { projectId, manifest, bundle })).id;
});

afterAll(async () => {
  await database.destroy();
});

// The claim statement takes any claimable row: the executions of earlier cases must not be.
beforeEach(async () => {
  await database.db.delete(executions);
});

/**
 * A new execution put in `state`: due (run_at reached), and, in the leased state, held by
 * `holder` under a lease that has lapsed only when `lapsed` (what `expireLease` needs).
 */
async function executionIn(state: ExecutionState, lapsed: boolean): Promise<string> {
  const { executionId } = valueOrThrow(
    await database.db.transaction((tx) =>
      enqueueExecution(
        tx,
        { clock, ids },
        { projectId, deploymentId, workflow: "w", input: null, trigger: { kind: "api" } },
      ),
    ),
  );
  const now = clock.now().getTime();
  const leased = state === leasedState;
  await database.db
    .update(executions)
    .set({
      status: state,
      runAt: new Date(now - 1000),
      leaseOwner: leased ? holder : null,
      leaseExpiresAt: leased ? new Date(lapsed ? now - 1000 : now + leaseMs) : null,
      startedAt: state === "queued" ? null : new Date(now - 2000),
    })
    .where(eq(executions.id, executionId));
  return executionId;
}

/** The project's usage and count deltas, newest first: a final end appends two and one. */
async function deltas() {
  const usage = await database.db
    .select()
    .from(usageDeltas)
    .where(eq(usageDeltas.projectId, projectId))
    .orderBy(desc(usageDeltas.id));
  const counts = await database.db
    .select()
    .from(executionCountDeltas)
    .where(eq(executionCountDeltas.projectId, projectId))
    .orderBy(desc(executionCountDeltas.id));
  return { usage, counts };
}

/** Everything a transition may write: the row, its steps, its wait tokens, its spans and the deltas. */
async function snapshot(executionId: string) {
  const [row] = await database.db.select().from(executions).where(eq(executions.id, executionId));
  const steps = await database.db.select().from(executionSteps).where(eq(executionSteps.executionId, executionId));
  const tokens = await database.db.select().from(waitTokens).where(eq(waitTokens.executionId, executionId));
  const [spanCount] = await database.db
    .select({ count: sql<number>`count(*)::int` })
    .from(spans)
    .where(eq(spans.executionId, executionId));
  const { usage, counts } = await deltas();
  return { row, steps, tokens, spans: spanCount?.count, usageDeltas: usage.length, countDeltas: counts.length };
}

const close = (): AttemptClose => ({
  now: clock.now(),
  attemptSpanId: "0000000000000001",
  attemptStatus: { code: "ok" },
  logs: [],
});

/** The transitions that change an execution's row; `startLocally` writes a new one already leased. */
type RowTransition = Exclude<TransitionName, "startLocally">;
const rowTransitions = transitionNames.filter((name): name is RowTransition => name !== "startLocally");

/** Takes `transition` as its caller would: a worker with the lease, or the API without one. */
async function take(transition: RowTransition, executionId: string, from: ExecutionState): Promise<boolean> {
  const lease: Lease = { executionId, workerId: holder };
  const db = database.db;
  switch (transition) {
    case "claim":
    case "wake":
    case "expireLease": {
      const { executions: claimed } = await claim(db, {
        workerId: taker,
        now: clock.now(),
        leaseMs,
        limit: 10,
        workspaceSlots: 10,
        transitions: [transition],
      });
      expect(claimed.map((execution) => execution.transition)).toEqual(claimed.length === 0 ? [] : [transition]);
      return claimed.length > 0;
    }
    case "recordStep": {
      const now = clock.now();
      const recorded = await recordStep(db, lease, {
        name: "a step",
        attempt: 1,
        sequence: 1,
        startedAt: now,
        finishedAt: now,
        durationMs: 0,
        logs: [],
        span: { spanId: "0000000000000002", traceId: "t", parentSpanId: "p", projectId, workflow: "w" },
        outcome: { ok: true, result: { value: 1 } },
      });
      return recorded.outcome === "taken";
    }
    case "sleep":
      return (
        (await sleep(db, lease, close(), { name: "nap", attempt: 1, sequence: 0, wakeAt: clock.now() })) === "taken"
      );
    case "wait": {
      const now = clock.now();
      const token = {
        name: "approval",
        nonce: "nonce",
        tokenHash: `hash of ${executionId}`,
        spanId: newSpanId(),
        now,
        expiresAt: new Date(now.getTime() + 60_000),
      };
      return (await wait(db, lease, close(), token)).outcome === "waiting";
    }
    case "retry":
      return (
        await endAttempts(db, { transition, holder: { workerId: holder }, parts: endStatementParts }, [
          { executionId, close: close(), values: { error: { name: "E", message: "m" }, runAt: clock.now() } },
        ])
      ).includes("taken");
    case "expire":
    case "requeue":
      return (
        await endAttempts(db, { transition, holder: { workerId: holder }, parts: endStatementParts }, [
          { executionId, close: close(), values: {} },
        ])
      ).includes("taken");
    case "succeed":
      return (await succeed(db, endStatementParts, lease, close(), { value: 1 })) === "taken";
    case "fail":
      return (await fail(db, endStatementParts, lease, close(), { name: "E", message: "m" })) === "taken";
    case "cancel":
      // A running execution is cancelled by its worker; the others by the API, without a lease.
      return (
        (await cancel(
          db,
          endStatementParts,
          { executionId, lease: from === leasedState ? lease : undefined },
          close(),
        )) === "taken"
      );
  }
}

describe("the execution state machine", () => {
  it("names every state once, and no transition leaves a final state", () => {
    expect(new Set(executionStates).size).toBe(executionStates.length);
    for (const name of transitionNames) {
      for (const from of transitions[name].from) expect(isFinal(from)).toBe(false);
    }
    expect(claimTransitions.every((name) => transitions[name].to === leasedState)).toBe(true);
  });

  for (const transition of rowTransitions) {
    for (const from of executionStates) {
      const allowed = isAllowed(transition, from);
      it(`${allowed ? "takes" : "refuses"} ${transition} from ${from}`, async () => {
        const executionId = await executionIn(from, transition === "expireLease");
        const before = await snapshot(executionId);
        const taken = await take(transition, executionId, from);
        const after = await snapshot(executionId);
        expect(taken).toBe(allowed);
        if (allowed) {
          expect(after.row?.status).toBe(transitions[transition].to);
          const ends = isFinal(transitions[transition].to) ? 1 : 0;
          expect(after.usageDeltas - before.usageDeltas).toBe(2 * ends);
          expect(after.countDeltas - before.countDeltas).toBe(ends);
          // Only the API's cancel (of an execution no lease guards) records when it was requested.
          if (transition === "cancel")
            expect(after.row?.cancelRequestedAt).toEqual(from === leasedState ? null : clock.now());
        } else {
          expect(after).toEqual(before);
        }
      });
    }
  }

  for (const from of executionStates) {
    const allowed = isAllowed("startLocally", from);
    it(`${allowed ? "writes" : "refuses"} a new execution leased by startLocally from ${from}`, async () => {
      const queued = queuedExecutionRows(
        { clock, ids },
        { projectId, deploymentId, workflow: "w", input: null, trigger: { kind: "api" } },
        { name: "w" },
      );
      const rows = { ...queued, execution: { ...queued.execution, status: from } };
      const now = clock.now();
      const slot = {
        workerId: holder,
        now,
        leaseExpiresAt: new Date(now.getTime() + leaseMs),
        accountId: "acc_states",
        begin: () => undefined,
        cancel: () => undefined,
      };
      if (!allowed) {
        expect(() => startLocally(rows, slot)).toThrow();
        return;
      }
      const started = startLocally(rows, slot);
      expect(started.execution.transition).toBe("startLocally");
      await database.db.transaction((tx) => insertNewExecutions(tx, [started.rows]));
      const [row] = await database.db.select().from(executions).where(eq(executions.id, queued.execution.id));
      expect(row).toMatchObject({ status: transitions.startLocally.to, leaseOwner: holder, startedAt: now });
    });
  }

  it("meters a final end as its start and its end, and counts it in its creation minute", async () => {
    const executionId = await executionIn(leasedState, false);
    await database.db
      .update(executions)
      .set({ input: { n: 1 } })
      .where(eq(executions.id, executionId));
    const [row] = await database.db.select().from(executions).where(eq(executions.id, executionId));
    clock.advance(90_000);
    expect(
      await fail(database.db, endStatementParts, { executionId, workerId: holder }, close(), {
        name: "E",
        message: "m",
      }),
    ).toBe("taken");
    const { usage, counts } = await deltas();
    // jsonb's text form of the input: `{"n": 1}`.
    const inputBytes = 8;
    expect(
      usage.slice(0, 2).map(({ at, executions: started, stepMs, bytes }) => ({ at, started, stepMs, bytes })),
    ).toEqual(
      expect.arrayContaining([
        { at: row?.createdAt, started: 1, stepMs: 0, bytes: inputBytes },
        { at: clock.now(), started: 0, stepMs: 0, bytes: 0 },
      ]),
    );
    const minute = new Date(Math.floor((row?.createdAt.getTime() ?? 0) / 60_000) * 60_000);
    expect(counts[0]).toMatchObject({ minute, status: "failed", n: 1 });
  });

  it("commits a sleep and a wait as durably as a step, and a worker's other ends without waiting for the flush", async () => {
    // Inside an outer transaction a write's own transaction is a savepoint, and the commit setting it
    // chose outlives it: read back, then the outer transaction rolls everything back.
    const committing = async (write: (tx: Database) => Promise<unknown>) => {
      let seen: { outcome: unknown; setting: string | undefined } | undefined;
      await database.db
        .transaction(async (tx) => {
          await tx.execute(sql`set local synchronous_commit = on`);
          const outcome = await write(tx as unknown as Database);
          const [row] = await sqlRows<{ setting: string }>(
            tx,
            sql`select current_setting('synchronous_commit') as setting`,
          );
          seen = { outcome, setting: row?.setting };
          tx.rollback();
        })
        .catch((error: unknown) => {
          if (!(error instanceof TransactionRollbackError)) throw error;
        });
      return seen;
    };
    const leased = async (): Promise<Lease> => ({
      executionId: await executionIn(leasedState, false),
      workerId: holder,
    });
    const napping = await leased();
    const nap = { name: "nap", attempt: 1, sequence: 0, wakeAt: clock.now() };
    expect(await committing((tx) => sleep(tx, napping, close(), nap))).toEqual({ outcome: "taken", setting: "on" });
    const waiting = await leased();
    const token = {
      name: "approval",
      nonce: "nonce",
      tokenHash: `hash of ${waiting.executionId}`,
      spanId: newSpanId(),
      now: clock.now(),
      expiresAt: new Date(clock.now().getTime() + 60_000),
    };
    expect(await committing(async (tx) => (await wait(tx, waiting, close(), token)).outcome)).toEqual({
      outcome: "waiting",
      setting: "on",
    });
    const ending = await leased();
    expect(await committing((tx) => succeed(tx, endStatementParts, ending, close(), { value: 1 }))).toEqual({
      outcome: "taken",
      setting: "off",
    });
  });

  it("ends a batch of attempts in one statement, each with its own values, spans, tokens and deltas, refusing one alone", async () => {
    const ended = [await executionIn(leasedState, false), await executionIn(leasedState, false)];
    const lost = await executionIn(leasedState, false);
    await database.db.update(executions).set({ leaseOwner: "wrk_other" }).where(eq(executions.id, lost));
    const all = [...ended, lost];
    const rows = await database.db.select().from(executions).where(inArray(executions.id, all));
    const rowOf = (id: string) => rows.find((row) => row.id === id);
    const attemptSpan = (id: string) => `a${id.slice(-15)}`;
    const span = (id: string, spanId: string, kind: "attempt" | "token" | "step", start: Date, end: Date | null) => ({
      span_id: spanId,
      trace_id: rowOf(id)?.traceId ?? "",
      parent_span_id: rowOf(id)?.executionSpanId ?? null,
      project_id: projectId,
      execution_id: id,
      workflow: "w",
      name: kind,
      kind,
      start_time: start.toISOString(),
      end_time: end?.toISOString() ?? null,
      attributes: {},
      status_code: "unset" as const,
      status_message: null,
    });
    const started = clock.now();
    await database.db.execute(
      insertSpans(spansFromJson(jsonParam(all.map((id) => span(id, attemptSpan(id), "attempt", started, null))))),
    );
    // The first execution waits on a token, which its end closes.
    await database.db.insert(waitTokens).values({
      executionId: ended[0] ?? "",
      name: "approval",
      projectId,
      tokenHash: "hash of a batch token",
      nonce: "nonce",
      status: "pending",
      spanId: "t000000000000001",
      createdAt: started,
      expiresAt: new Date(started.getTime() + 60_000),
    });
    await database.db.execute(
      insertSpans(spansFromJson(jsonParam([span(ended[0] ?? "", "t000000000000001", "token", started, null)]))),
    );
    const lostBefore = await snapshot(lost);
    const before = await deltas();
    const times = [new Date(started.getTime() + 1_000), new Date(started.getTime() + 2_000), started];
    // The second brings a step span of 25 ms not written yet: billed as 30.
    const stepSpan = span(ended[1] ?? "", "s000000000000001", "step", started, new Date(started.getTime() + 25));
    const outcomes = await endAttempts(
      database.db,
      { transition: "fail", holder: { workerId: holder }, parts: endStatementParts },
      all.map((executionId, index) => ({
        executionId,
        close: {
          now: times[index] ?? started,
          attemptSpanId: attemptSpan(executionId),
          attemptStatus: { code: "error" as const, message: `attempt ${index}` },
          logs: [{ level: "info" as const, message: `log ${index}`, at: started.toISOString() }],
          stepSpans: index === 1 ? [stepSpan] : [],
        },
        values: { error: { name: "E", message: `failure ${index}` } },
      })),
    );
    expect(outcomes).toEqual(["taken", "taken", "refused"]);
    expect(await snapshot(lost)).toEqual({
      ...lostBefore,
      usageDeltas: lostBefore.usageDeltas + 4,
      countDeltas: lostBefore.countDeltas + 2,
    });

    const after = await database.db.select().from(executions).where(inArray(executions.id, ended));
    for (const [index, id] of ended.entries()) {
      const row = after.find((candidate) => candidate.id === id);
      expect(row).toMatchObject({ status: "failed", leaseOwner: null, finishedAt: times[index] });
      expect(row?.error).toEqual({ name: "E", message: `failure ${index}` });
      expect(row?.logs.map((entry) => entry.message)).toEqual([`log ${index}`]);
    }
    const [committed] = await database.db
      .select({ n: sql<number>`count(distinct xmin::text)::int` })
      .from(executions)
      .where(inArray(executions.id, ended));
    expect(committed?.n).toBe(1);

    const endedSpans = await database.db
      .select()
      .from(spans)
      .where(inArray(spans.executionId, all))
      .orderBy(spans.spanId);
    const spanOf = (id: string, kind: string) =>
      endedSpans
        .filter((row) => row.executionId === id && row.kind === kind)
        .map(({ endTime, statusCode, statusMessage }) => ({ endTime, statusCode, statusMessage }));
    for (const [index, id] of ended.entries()) {
      expect(spanOf(id, "attempt")).toEqual([
        { endTime: times[index], statusCode: "error", statusMessage: `attempt ${index}` },
      ]);
      expect(spanOf(id, "execution")).toEqual([
        { endTime: times[index], statusCode: "error", statusMessage: `failure ${index}` },
      ]);
    }
    expect(spanOf(ended[0] ?? "", "token")).toEqual([
      { endTime: times[0], statusCode: "error", statusMessage: "the execution ended" },
    ]);
    expect(spanOf(ended[1] ?? "", "step")).toHaveLength(1);
    expect(spanOf(lost, "attempt")).toEqual([{ endTime: null, statusCode: "unset", statusMessage: null }]);
    const [token] = await database.db
      .select()
      .from(waitTokens)
      .where(eq(waitTokens.executionId, ended[0] ?? ""));
    expect(token).toMatchObject({ status: "closed", finishedAt: times[0] });

    const { usage, counts } = await deltas();
    const newUsage = usage.slice(0, usage.length - before.usage.length);
    expect(
      newUsage
        .filter((delta) => delta.executions === 0)
        .map(({ at, stepMs }) => ({ at, stepMs }))
        .sort((a, b) => a.at.getTime() - b.at.getTime()),
    ).toEqual([
      { at: times[0], stepMs: 0 },
      { at: times[1], stepMs: 30 },
    ]);
    expect(newUsage.filter((delta) => delta.executions === 1)).toHaveLength(2);
    expect(counts.length - before.counts.length).toBe(2);
  });

  it("refuses a worker's transition on a running execution whose lease another worker holds", async () => {
    const executionId = await executionIn(leasedState, false);
    const before = await snapshot(executionId);
    const lease: Lease = { executionId, workerId: "wrk_other" };
    expect(await succeed(database.db, endStatementParts, lease, close(), { value: 1 })).toBe("refused");
    expect(await cancel(database.db, endStatementParts, { executionId, lease }, close())).toBe("refused");
    expect(await cancel(database.db, endStatementParts, { executionId }, close())).toBe("refused");
    expect(await snapshot(executionId)).toEqual(before);
  });

  it("does not let a worker take over a running execution whose lease has not lapsed", async () => {
    const executionId = await executionIn(leasedState, false);
    const before = await snapshot(executionId);
    const { executions: claimed } = await claim(database.db, {
      workerId: taker,
      now: clock.now(),
      leaseMs,
      limit: 10,
      workspaceSlots: 10,
    });
    expect(claimed).toEqual([]);
    expect(await snapshot(executionId)).toEqual(before);
  });
});
