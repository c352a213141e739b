import {
  callRpc,
  createTestDatabase,
  createTestIdentity,
  type EngineHarness,
  ensureTestProject,
  startEngineHarness,
  startTestPlatform,
  statementRuns,
  type TestDatabase,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import { and, asc, count, eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assignPlan } from "../src/billing/assign-plan.ts";
import { unlimitedPlan } from "../src/billing/plans.ts";
import { quotaCacheMs } from "../src/billing/quota-gate.ts";
import { defaultSchedulesPerWorkspace } from "../src/billing/schedule-quota.ts";
import type { Database } from "../src/db/database.ts";
import * as schema from "../src/db/schema/index.ts";
import { auditEvents, deployments, executionSteps, executions, schedules } from "../src/db/schema/index.ts";
import { createDeployment } from "../src/deployments/create-deployment.ts";
import { fireDueSchedules, firstTransactionTicks, ticksPerTransaction } from "../src/schedules/fire-due-schedules.ts";
import { createManualClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";

/**
 * A tenant that schedules its way around the platform's limits: ticks over a monthly quota, more
 * schedules than a person keeps, a minute of a thousand ticks, and steps that run on past the
 * step-seconds quota.
 */

const minute = 60_000;
const plans = [{ name: "free" }, { name: "tiny", executionsPerMonth: 2, schedules: 3 }];

interface ScheduleJson {
  name: string;
  lastRunAt: string | null;
  lastSkippedAt: string | null;
  lastSkipReason: string | null;
}

describe("schedules under the plan's quotas (platform)", () => {
  let weft: TestPlatform;
  /** The tenant of the test running: a workspace of its own on the plan "tiny". */
  let tenant: TestIdentity;

  beforeAll(async () => {
    // No worker: ticks are fired below, as a worker's poll fires them, at the manual clock's time.
    weft = await startTestPlatform({
      env: { WEFT_ROLES: "auth,api,ingress", WEFT_PLANS: JSON.stringify(plans), WEFT_DEFAULT_PLAN: "free" },
    });
    weft.clock.set(new Date("2026-03-10T23:55:30.000Z"));
  });
  afterAll(async () => {
    await weft?.stop();
  });

  async function tinyTenant(email: string): Promise<void> {
    tenant = await createTestIdentity(weft, email);
    valueOrThrow(
      await assignPlan(weft.database.db, weft.platform.context.config.billing, {
        workspaceId: tenant.personalWorkspaceId,
        plan: "tiny",
      }),
    );
  }

  async function call<T>(procedure: string, input: unknown): Promise<{ status: number; json: T }> {
    const result = await callRpc(weft.url, procedure, input, { token: tenant.credential });
    return { status: result.status, json: result.json as T };
  }

  async function newProject(name: string): Promise<string> {
    return (await call<{ id: string }>("projects.create", { name })).json.id;
  }

  function deploy(projectId: string, names: string[]) {
    return call<{ id: string; message?: string; data?: { issues?: { path: unknown[]; message: string }[] } }>(
      "deployments.create",
      {
        projectId,
        manifest: {
          version: 1,
          workflows: [{ name: "report" }],
          schedules: names.map((name) => ({ name, workflow: "report", cron: "* * * * *" })),
        },
        bundle: "export default {};",
      },
    );
  }

  const fire = () =>
    fireDueSchedules(weft.database.db, {
      clock: weft.clock,
      ids: weft.platform.context.ids,
      catalogue: weft.platform.context.config.billing,
    });

  async function skipAudits(projectId: string): Promise<number> {
    const [row] = await weft.database.db
      .select({ n: count() })
      .from(auditEvents)
      .where(and(eq(auditEvents.action, "schedule.skipped"), eq(auditEvents.targetId, `${projectId}/minutely`)));
    return row?.n ?? 0;
  }

  it("a tick over the monthly execution quota starts nothing: schedules.list shows it skipped and why, audited once a day", async () => {
    await tinyTenant("ada@schedules.test");
    const projectId = await newProject("Ticking");
    expect((await deploy(projectId, ["minutely"])).status).toBe(200);
    for (let tick = 0; tick < 4; tick += 1) {
      weft.clock.advance(minute);
      await fire();
    }
    // 23:56 and 23:57 used the plan's two executions; 23:58 and 23:59 started nothing.
    const [listed] = (await call<{ results: ScheduleJson[] }>("schedules.list", { projectId })).json.results;
    expect(listed).toMatchObject({
      name: "minutely",
      lastRunAt: "2026-03-10T23:57:00.000Z",
      lastSkippedAt: "2026-03-10T23:59:00.000Z",
    });
    expect(listed?.lastSkipReason).toMatch(/quota executionsPerMonth used up \(2 of 2\); it resets at 2026-04-01/);
    const [started] = await weft.database.db
      .select({ n: count() })
      .from(executions)
      .where(eq(executions.projectId, projectId));
    expect(started?.n).toBe(2);
    expect(await skipAudits(projectId)).toBe(1);

    // The next UTC day: one more audit, however many ticks it skips.
    for (let tick = 0; tick < 3; tick += 1) {
      weft.clock.advance(minute);
      await fire();
    }
    expect(await skipAudits(projectId)).toBe(2);
    const [audit] = await weft.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.targetId, `${projectId}/minutely`))
      .orderBy(asc(auditEvents.createdAt));
    expect(audit).toMatchObject({
      action: "schedule.skipped",
      targetType: "schedule",
      workspaceId: tenant.personalWorkspaceId,
      actorAccountId: null,
      data: {
        projectId,
        name: "minutely",
        scheduledFor: "2026-03-10T23:58:00.000Z",
        quota: { name: "executionsPerMonth", limit: 2, used: 2, resetsAt: "2026-04-01T00:00:00.000Z" },
      },
    });
    // A deploy keeps the record of the latest skipped tick.
    expect((await deploy(projectId, ["minutely"])).status).toBe(200);
    const [kept] = (await call<{ results: ScheduleJson[] }>("schedules.list", { projectId })).json.results;
    expect(kept?.lastSkippedAt).toBe("2026-03-11T00:02:00.000Z");
  });

  it("a deploy or rollback over the workspace's schedules is refused with 400 naming the limit, storing nothing", async () => {
    await tinyTenant("cleo@schedules.test");
    const first = await newProject("First");
    const second = await newProject("Second");
    const original = await deploy(first, ["a", "b", "c"]);
    expect(original.status).toBe(200);
    expect((await deploy(first, ["a"])).status).toBe(200);
    expect((await deploy(second, ["x", "y"])).status).toBe(200);

    const refused = await deploy(second, ["x", "y", "z"]);
    expect(refused.status).toBe(400);
    expect(refused.json.message).toMatch(
      /allows 3 schedules .*\(quota schedules\), and this deployment has 3 and the workspace's other projects 1/,
    );
    expect(refused.json.data?.issues?.[0]?.path).toEqual(["manifest", "schedules"]);
    const [stored] = await weft.database.db
      .select({ n: count() })
      .from(deployments)
      .where(eq(deployments.projectId, second));
    expect(stored?.n).toBe(1);
    expect(await weft.database.db.select().from(schedules).where(eq(schedules.projectId, second))).toHaveLength(2);

    // Rolling `first` back to its three schedules would make five.
    const rollback = await call<{ message: string }>("deployments.activate", {
      projectId: first,
      deploymentId: original.json.id,
    });
    expect(rollback.status).toBe(400);
    expect(rollback.json.message).toMatch(/allows 3 schedules/);
    expect(await weft.database.db.select().from(schedules).where(eq(schedules.projectId, first))).toHaveLength(1);
  });

  it(`a plan that leaves the quota out allows ${defaultSchedulesPerWorkspace} schedules per workspace`, async () => {
    const bob = await createTestIdentity(weft, "bob@schedules.test");
    const deployed = async (name: string, n: number) => {
      const created = await callRpc(weft.url, "projects.create", { name }, { token: bob.credential });
      const schedulesOfIt = Array.from({ length: n }, (_, index) => ({
        name: `s${index}`,
        workflow: "report",
        cron: "0 0 1 1 *",
      }));
      const manifest = { version: 1, workflows: [{ name: "report" }], schedules: schedulesOfIt };
      const input = { projectId: (created.json as { id: string }).id, manifest, bundle: "export default {};" };
      return (await callRpc(weft.url, "deployments.create", input, { token: bob.credential })).status;
    };
    // A deployment holds at most 200 (the manifest's own limit); the workspace, 500 on the plan "free".
    expect([await deployed("One", 200), await deployed("Two", 200), await deployed("Three", 100)]).toEqual([
      200, 200, 200,
    ]);
    expect(await deployed("Four", 1)).toBe(400);
  });
});

describe("a minute of 1 000 ticks", () => {
  let database: TestDatabase;
  /** The embedded database's one connection, or one PostgreSQL connection: every named statement it runs is counted. */
  let db: Database;
  let pool: pg.Pool | undefined;
  const clock = createManualClock(new Date("2026-04-01T00:00:30.000Z"));
  const ids = createIdGenerator(clock);

  beforeAll(async () => {
    database = await createTestDatabase();
    if (database.url === undefined) db = database.db;
    else {
      pool = new pg.Pool({ connectionString: database.url, max: 1, idleTimeoutMillis: 0 });
      db = drizzle({ client: pool, schema }) as unknown as Database;
    }
  });
  afterAll(async () => {
    await pool?.end();
    await database?.destroy();
  });

  it("is fired in transactions of at most ticksPerTransaction ticks, each with one multi-row insert of ticks", async () => {
    // Five tenants of 200 every-minute schedules, each in a workspace of its own.
    for (let tenant = 0; tenant < 5; tenant += 1) {
      const projectId = `prj_minute${tenant}`;
      await ensureTestProject(db, { clock, ids }, projectId, `tenant${tenant}@schedules.test`);
      valueOrThrow(
        await createDeployment(
          db,
          { clock, ids },
          {
            projectId,
            manifest: {
              version: 1,
              workflows: [{ name: "report" }],
              schedules: Array.from({ length: 200 }, (_, index) => ({
                name: `every-minute-${index}`,
                workflow: "report",
                cron: "* * * * *",
              })),
            },
            bundle: "export default {};",
          },
        ),
      );
    }
    const runs = async () => ({
      transactions: await statementRuns(db, "for update of s skip locked"),
      tickInserts: await statementRuns(db, 'insert into "schedule_ticks"'),
      executionInserts: await statementRuns(db, "inserted_executions as ("),
      scheduleUpdates: await statementRuns(db, "update schedules s set next_run_at"),
    });
    const before = await runs();
    clock.advance(minute);
    // No time budget: it would size the batches by this machine's speed; the count bounds them alone.
    const fired = await fireDueSchedules(
      db,
      { clock, ids, catalogue: { plans: [unlimitedPlan], defaultPlan: unlimitedPlan.name } },
      { transactionBudgetMs: Number.POSITIVE_INFINITY },
    );
    const after = await runs();
    expect(fired).toHaveLength(1000);
    // The first transaction takes firstTransactionTicks, each next one ticksPerTransaction (no time
    // budget here); the first to find fewer due than it may take ends the pass.
    const rest = 1000 - firstTransactionTicks;
    const batches = 1 + Math.ceil(rest / ticksPerTransaction);
    const transactions = batches + (rest % ticksPerTransaction === 0 ? 1 : 0);
    expect({
      transactions: after.transactions - before.transactions,
      tickInserts: after.tickInserts - before.tickInserts,
      executionInserts: after.executionInserts - before.executionInserts,
      scheduleUpdates: after.scheduleUpdates - before.scheduleUpdates,
    }).toEqual({
      transactions,
      tickInserts: batches,
      executionInserts: batches,
      scheduleUpdates: batches,
    });
    const [row] = await db.select({ n: count() }).from(executions);
    expect(row?.n).toBe(1000);
    // Nothing fires twice: the next pass at the same minute finds nothing due.
    expect(
      await fireDueSchedules(db, { clock, ids, catalogue: { plans: [unlimitedPlan], defaultPlan: "unlimited" } }),
    ).toEqual([]);
  }, 120_000);
});

describe("the step-seconds quota", () => {
  let engine: EngineHarness;
  const limitSeconds = 1;
  const stepMs = 200;
  const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [workflow({ name: "grind", async run(_input: unknown, ctx) {
    for (let index = 0; index < 20; index += 1) {
      await ctx.step("s" + index, () => new Promise((resolve) => setTimeout(() => resolve(index), ${stepMs})));
    }
    return "all steps ran";
  } })],
});
`;
  const manifest = { version: 1, workflows: [{ name: "grind" }] };

  beforeAll(async () => {
    engine = await startEngineHarness({
      billing: { plans: [{ name: "metered", stepSecondsPerMonth: limitSeconds }], defaultPlan: "metered" },
    });
    engine.clock.set(new Date("2026-05-10T12:00:00.000Z"));
  }, 60_000);
  afterAll(async () => {
    await engine?.stop();
  });

  it("ends an execution that crosses it with a quota error at its next step boundary, and starts no step after", async () => {
    await engine.deploy("prj_grinder", source, manifest);
    const executionId = await engine.run("prj_grinder", "grind", {});
    const ended = await engine.waitFor(executionId, (row) => row.finishedAt !== null, 60_000);
    expect(ended.status).toBe("failed");
    expect(ended.error).toMatchObject({
      name: "QuotaExceededError",
      message: expect.stringMatching(/allows 1 step-seconds this month \(quota stepSecondsPerMonth\)/),
    });
    const steps = await engine.database.db
      .select({ startedAt: executionSteps.startedAt, finishedAt: executionSteps.finishedAt })
      .from(executionSteps)
      .where(eq(executionSteps.executionId, executionId))
      .orderBy(asc(executionSteps.sequence));
    expect(steps.length).toBeLessThan(20);
    // Billed as the meters bill steps: the steps before the last stayed under the quota, the last crossed it.
    const billed = steps.map(
      (step) => Math.max(1, Math.ceil((step.finishedAt.getTime() - (step.startedAt?.getTime() ?? 0)) / 10)) * 10,
    );
    const total = billed.reduce((sum, ms) => sum + ms, 0);
    expect(total - (billed.at(-1) ?? 0)).toBeLessThan(limitSeconds * 1000);
    expect(total).toBeGreaterThanOrEqual(limitSeconds * 1000);

    // Once the worker has read the ended execution's step time, the next one runs no step at all.
    engine.clock.advance(quotaCacheMs + 1);
    const next = await engine.run("prj_grinder", "grind", {});
    const refused = await engine.waitFor(next, (row) => row.finishedAt !== null, 60_000);
    expect(refused.error).toMatchObject({ name: "QuotaExceededError" });
    expect(await engine.database.db.select().from(executionSteps).where(eq(executionSteps.executionId, next))).toEqual(
      [],
    );
  }, 120_000);
});
