import {
  bundleConfig,
  callRpc,
  createTestIdentity,
  emailRegistration,
  postJson,
  startTestPlatform,
  type TestIdentity,
  type TestPlatform,
  untilExecutionStatus,
} from "@weft/testing";
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  alertDeliveries,
  executions,
  flowControlWindows,
  idempotencyKeys,
  registrations,
  scheduleTicks,
  spans,
  usedAssertionIds,
} from "../src/db/schema/index.ts";
import { pruneHistory } from "../src/retention/prune-history.ts";
import { systemTimers } from "../src/shared/timers.ts";

/**
 * Retention end to end: executions finished before their project's period are deleted by the
 * worker's pass with everything that hangs off them, others stay, and bookkeeping rows go after
 * theirs. Time passes on the platform's manual clock only.
 */

const dayMs = 24 * 60 * 60 * 1000;
let weft: TestPlatform;
let owner: TestIdentity;

const source = `
import { defineConfig, workflow } from "@weft/sdk";

export default defineConfig({
  workflows: [
    workflow({
      name: "greet",
      async run(input: { name: string }, ctx) {
        return ctx.step("hello", () => "hello " + input.name);
      },
    }),
    workflow({
      name: "nap",
      async run(_input: unknown, ctx) {
        await ctx.sleep("long", "365d");
        return "woke";
      },
    }),
  ],
});
`;
const manifest = { version: 1, workflows: [{ name: "greet" }, { name: "nap" }] };

interface ExecutionJson {
  id: string;
  status: string;
  traceId: string;
}

async function call<T>(procedure: string, input: unknown) {
  const result = await callRpc(weft.url, procedure, input, { token: owner.credential });
  return { status: result.status, json: result.json as T };
}

function until(executionId: string, statuses: string[]): Promise<ExecutionJson> {
  return untilExecutionStatus<ExecutionJson>(weft.url, owner.credential, executionId, statuses);
}

async function projectWithWorkflows(name: string): Promise<string> {
  const projectId = (await call<{ id: string }>("projects.create", { name })).json.id;
  const deployed = await call("deployments.create", { projectId, manifest, bundle: await bundleConfig(source) });
  expect(deployed.status).toBe(200);
  return projectId;
}

async function run(projectId: string, workflow: string, idempotencyKey: string): Promise<string> {
  const ran = await call<{ executionId: string }>("workflows.run", {
    projectId,
    workflow,
    input: { name: "ada" },
    idempotencyKey,
  });
  expect(ran.status).toBe(200);
  return ran.json.executionId;
}

async function rowsOf(executionId: string) {
  const db = weft.database.db;
  const [execution] = await db.select({ value: count() }).from(executions).where(eq(executions.id, executionId));
  const [spanRows] = await db.select({ value: count() }).from(spans).where(eq(spans.executionId, executionId));
  const [keys] = await db
    .select({ value: count() })
    .from(idempotencyKeys)
    .where(eq(idempotencyKeys.executionId, executionId));
  return { executions: execution?.value, spans: spanRows?.value, idempotencyKeys: keys?.value };
}

/** Moves the platform's clock and gives the owner a credential valid at the new time. */
async function advanceDays(days: number): Promise<void> {
  weft.clock.advance(days * dayMs);
  owner = await createTestIdentity(weft, "owner@example.com");
}

beforeAll(async () => {
  weft = await startTestPlatform({
    configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
  });
  owner = await createTestIdentity(weft, "owner@example.com");
});

afterAll(async () => {
  await weft.stop();
});

describe("finished executions", () => {
  it("are deleted after the default period, or the project's own; unfinished ones never are", async () => {
    const worker = weft.platform.periodicJobs;
    if (worker === undefined) throw new Error("the test platform runs a worker");
    const byDefault = await projectWithWorkflows("By default");
    const keptLonger = await projectWithWorkflows("Kept longer");
    const updated = await call<{ retentionDays: number | null }>("projects.update", {
      projectId: keptLonger,
      retentionDays: 90,
    });
    expect(updated).toMatchObject({ status: 200, json: { retentionDays: 90 } });

    const short = await run(byDefault, "greet", "short");
    const long = await run(keptLonger, "greet", "long");
    const napping = await run(byDefault, "nap", "nap");
    const { traceId } = await until(short, ["succeeded"]);
    await until(long, ["succeeded"]);
    await until(napping, ["sleeping"]);
    expect(await rowsOf(short)).toEqual({ executions: 1, spans: 4, idempotencyKeys: 1 });

    await advanceDays(29);
    expect((await worker.pruneHistory()).executions).toBe(0);

    await advanceDays(2);
    const report = await worker.pruneHistory();
    expect(report).toMatchObject({ executions: 1, spans: 4, complete: true });
    expect(await rowsOf(short)).toEqual({ executions: 0, spans: 0, idempotencyKeys: 0 });
    expect((await call("workflows.getExecution", { executionId: short })).status).toBe(404);
    expect((await call("traces.get", { projectId: byDefault, traceId })).status).toBe(404);
    expect((await rowsOf(long)).executions).toBe(1);
    expect((await rowsOf(napping)).executions).toBe(1);

    // The key is free again: the same key starts a new execution.
    const again = await run(byDefault, "greet", "short");
    expect(again).not.toBe(short);
    await until(again, ["succeeded"]);

    await advanceDays(60);
    expect((await worker.pruneHistory()).executions).toBe(2);
    expect((await rowsOf(long)).executions).toBe(0);
    expect((await rowsOf(napping)).executions).toBe(1);

    // Back to the default: nothing is left to delete that the default keeps.
    const reset = await call<{ retentionDays: number | null }>("projects.update", {
      projectId: keptLonger,
      retentionDays: null,
    });
    expect(reset).toMatchObject({ status: 200, json: { retentionDays: null } });
  }, 60_000);
});

describe("bookkeeping rows", () => {
  it("go once their own period has passed since they stopped mattering", async () => {
    const db = weft.database.db;
    const registered = await postJson(`${weft.url}/agent/auth`, emailRegistration("nobody@example.com"));
    expect(registered.status).toBe(201);
    const now = weft.clock.now();
    await db.insert(usedAssertionIds).values({ issuer: "https://idp.test", jti: "old", expiresAt: now });
    const projectId = (await call<{ id: string }>("projects.create", { name: "Ticking" })).json.id;
    await db
      .insert(scheduleTicks)
      .values({ projectId, scheduleName: "hourly", scheduledFor: now, executionId: "exe_gone", firedAt: now });
    const delivery = {
      projectId,
      workflow: "breaks",
      targetKind: "mail" as const,
      target: "ops@example.com",
      failures: 1,
      lastExecutionId: "exe_gone",
      notice: {
        project: { id: projectId, name: "Ticking" },
        workflow: "breaks",
        failures: 1,
        firstFailureAt: now.toISOString(),
        lastFailureAt: now.toISOString(),
        lastExecution: { id: "exe_gone", error: { name: "Error", message: "x", location: null, description: "x" } },
      },
      attempts: 1,
      createdAt: now,
    };
    await db.insert(alertDeliveries).values([
      { ...delivery, id: "alr_sent", status: "sent", sentAt: now },
      // Due long after the pass, so the worker's dispatcher leaves it pending meanwhile.
      { ...delivery, id: "alr_pending", status: "pending", nextAttemptAt: new Date(now.getTime() + 30 * 86_400_000) },
    ]);
    const [unissued] = await db
      .select({ value: count() })
      .from(registrations)
      .where(eq(registrations.email, "nobody@example.com"));
    expect(unissued?.value).toBe(1);

    // A throttle's window whose time passed, and one whose time is still to come.
    await db.insert(flowControlWindows).values([
      { projectId, workflow: "sync", kind: "throttle", key: '"old"', nextAt: now },
      {
        projectId,
        workflow: "sync",
        kind: "rateLimit",
        key: '"new"',
        nextAt: new Date(now.getTime() + 30 * 86_400_000),
      },
    ]);

    await advanceDays(8);
    const worker = weft.platform.periodicJobs;
    if (worker === undefined) throw new Error("the test platform runs a worker");
    const report = await worker.pruneHistory();
    expect(report.registrations).toBe(1);
    expect(report.assertionIds).toBe(1);
    const [left] = await db
      .select({ value: count() })
      .from(registrations)
      .where(eq(registrations.email, "nobody@example.com"));
    expect(left?.value).toBe(0);
    expect(report.scheduleTicks).toBe(1);
    const [ticks] = await db
      .select({ value: count() })
      .from(scheduleTicks)
      .where(eq(scheduleTicks.projectId, projectId));
    expect(ticks?.value).toBe(0);
    // A delivery that is over goes; one still to be tried stays, whatever its age.
    expect(report.alertDeliveries).toBe(1);
    expect(
      (
        await db
          .select({ id: alertDeliveries.id })
          .from(alertDeliveries)
          .where(eq(alertDeliveries.projectId, projectId))
      ).map((row) => row.id),
    ).toEqual(["alr_pending"]);
    expect(report.flowControlWindows).toBe(1);
    expect(
      (
        await db
          .select({ key: flowControlWindows.key })
          .from(flowControlWindows)
          .where(eq(flowControlWindows.projectId, projectId))
      ).map((row) => row.key),
    ).toEqual(['"new"']);
  });
});

describe("a pass out of time", () => {
  it("stops before its next batch and says it is not complete", async () => {
    const immediately = {
      after: (_ms: number, callback: () => void) => {
        callback();
        return () => undefined;
      },
    };
    const report = await pruneHistory(
      weft.database.db,
      { clock: weft.clock, timers: immediately },
      { executionDays: 1, bookkeepingDays: 1 },
      { batchSize: 1, budgetMs: 0, pauseFactor: 0 },
    );
    expect(report).toMatchObject({ executions: 0, complete: false });
    const finished = await pruneHistory(
      weft.database.db,
      { clock: weft.clock, timers: systemTimers },
      { executionDays: 1, bookkeepingDays: 1 },
      { batchSize: 1, budgetMs: 60_000, pauseFactor: 0 },
    );
    expect(finished.complete).toBe(true);
  });
});

describe("projects.update", () => {
  it.each([
    ["zero days", { retentionDays: 0 }],
    ["a fraction", { retentionDays: 1.5 }],
    ["text", { retentionDays: "30" }],
    ["over 100 years", { retentionDays: 36501 }],
    ["nothing to change", {}],
  ])("refuses %s with BAD_REQUEST and changes nothing", async (_case, change) => {
    const projectId = (await call<{ id: string }>("projects.create", { name: `Refusals ${_case}` })).json.id;
    const before = await call("projects.get", { projectId });
    const refused = await call<{ code: string }>("projects.update", { projectId, ...change });
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe("BAD_REQUEST");
    expect(await call("projects.get", { projectId })).toEqual(before);
  });
});
