import {
  callRpcAs,
  createTeamWorkspace,
  createTestIdentity,
  deployManifest,
  executionCount,
  joinWorkspace,
  startTestPlatform,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import { count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assignPlan } from "../src/billing/assign-plan.ts";
import { quotaCacheMs } from "../src/billing/quota-gate.ts";
import { closePreviousMonth } from "../src/billing/statements.ts";
import { projects, usageDeltas, usageStatements } from "../src/db/schema/index.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";

const plans = [
  { name: "small", executionsPerMonth: 3, projects: 2 },
  { name: "tiny-storage", storageBytes: 40 },
];
const manifest = {
  version: 1 as const,
  workflows: [{ name: "echo" }],
  webhooks: [{ name: "hook", workflow: "echo" }],
};

let weft: TestPlatform;

beforeAll(async () => {
  // No worker: the quotas count executions started, whether they have run or not.
  weft = await startTestPlatform({
    env: { WEFT_ROLES: "auth,api,ingress", WEFT_PLANS: JSON.stringify(plans), WEFT_DEFAULT_PLAN: "small" },
  });
  weft.clock.set(new Date("2026-01-31T23:59:00.000Z"));
});
afterAll(async () => {
  await weft.stop();
});

async function newProject(who: TestIdentity, name: string, workspaceId = who.personalWorkspaceId) {
  return callRpcAs(weft, who, "projects.create", { name, workspaceId });
}

async function deployedProject(who: TestIdentity, name: string): Promise<string> {
  const created = await newProject(who, name);
  expect(created.status).toBe(200);
  const projectId = (created.json as { id: string }).id;
  await deployManifest(weft, projectId, manifest);
  return projectId;
}

function webhook(projectId: string, body: unknown = { n: 1 }): Promise<Response> {
  return fetch(`${weft.url}/triggers/webhooks/${projectId}/hook`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

function run(who: TestIdentity, projectId: string) {
  return callRpcAs(weft, who, "workflows.run", { projectId, workflow: "echo", input: {} });
}

describe("quotas", () => {
  it("refuses executions over the monthly quota at ingress (429) and workflows.run (TOO_MANY_REQUESTS), and starts again next month", async () => {
    const ada = await createTestIdentity(weft, "ada@billing.test");
    const projectId = await deployedProject(ada, "site");
    expect((await webhook(projectId)).status).toBe(202);
    expect((await webhook(projectId)).status).toBe(202);
    expect((await run(ada, projectId)).status).toBe(200);

    const refused = await webhook(projectId);
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { error: string; message: string };
    expect(body.error).toBe("quota_exceeded");
    expect(body.message).toMatch(/executionsPerMonth/);
    expect(body.message).toMatch(/resets at 2026-02-01T00:00:00\.000Z/);

    const refusedRun = await run(ada, projectId);
    expect(refusedRun.status).toBe(429);
    expect(refusedRun.json).toMatchObject({
      code: "TOO_MANY_REQUESTS",
      data: { quota: { name: "executionsPerMonth", limit: 3, used: 3, resetsAt: "2026-02-01T00:00:00.000Z" } },
    });
    expect(await executionCount(weft, projectId)).toBe(3);

    weft.clock.set(new Date("2026-02-01T00:00:00.000Z"));
    expect((await webhook(projectId)).status).toBe(202);
    expect((await run(ada, projectId)).status).toBe(200);
    expect(await executionCount(weft, projectId)).toBe(5);
  });

  it("refuses a project over the plan's project count with FORBIDDEN and data.quota, creating nothing", async () => {
    const bob = await createTestIdentity(weft, "bob@billing.test");
    expect((await newProject(bob, "one")).status).toBe(200);
    expect((await newProject(bob, "two")).status).toBe(200);
    const third = await newProject(bob, "three");
    expect(third.status).toBe(403);
    expect(third.json).toMatchObject({
      code: "FORBIDDEN",
      data: { quota: { name: "projects", limit: 2, used: 2, resetsAt: null } },
    });
    const [row] = await weft.database.db
      .select({ n: count() })
      .from(projects)
      .where(eq(projects.workspaceId, bob.personalWorkspaceId));
    expect(row?.n).toBe(2);
  });

  it("refuses executions once the stored bytes reach the plan's storage quota, as its counters are read again", async () => {
    const cleo = await createTestIdentity(weft, "cleo@billing.test");
    const projectId = await deployedProject(cleo, "store");
    valueOrThrow(
      await assignPlan(weft.database.db, weft.platform.context.config.billing, {
        workspaceId: cleo.personalWorkspaceId,
        plan: "tiny-storage",
      }),
    );
    weft.clock.advance(quotaCacheMs + 1);
    expect((await webhook(projectId, { text: "x".repeat(50) })).status).toBe(202);
    weft.clock.advance(quotaCacheMs + 1);
    const refused = await webhook(projectId);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { message: string }).message).toMatch(/storageBytes/);
  });

  it("set-plan refuses a plan WEFT_PLANS does not name, and a workspace that does not exist", async () => {
    const catalogue = weft.platform.context.config.billing;
    const dan = await createTestIdentity(weft, "dan@billing.test");
    expect(
      await assignPlan(weft.database.db, catalogue, { workspaceId: dan.personalWorkspaceId, plan: "gold" }),
    ).toMatchObject({
      ok: false,
      failure: { kind: "invalid", message: expect.stringMatching(/no plan is named "gold" in WEFT_PLANS/) },
    });
    expect(
      await assignPlan(weft.database.db, catalogue, { workspaceId: "wsp_00000000000000000000000000", plan: "small" }),
    ).toMatchObject({ ok: false, failure: { kind: "not_found" } });
  });
});

describe("the billing namespace", () => {
  let eve: TestIdentity;
  let projectId: string;

  beforeAll(async () => {
    weft.clock.set(new Date("2026-03-30T12:00:00.000Z"));
    eve = await createTestIdentity(weft, "eve@billing.test");
    projectId = await deployedProject(eve, "shop");
    expect((await webhook(projectId, { a: 1 })).status).toBe(202);
    weft.clock.set(new Date("2026-03-31T12:00:00.000Z"));
    expect((await webhook(projectId, { a: 2 })).status).toBe(202);
    expect((await run(eve, projectId)).status).toBe(200);
  });

  it("getPlan answers the plan, its quotas and this month's use", async () => {
    const plan = await callRpcAs(weft, eve, "billing.getPlan", { workspaceId: eve.personalWorkspaceId });
    expect(plan.status).toBe(200);
    expect(plan.json).toMatchObject({
      plan: { name: "small", executionsPerMonth: 3, projects: 2 },
      used: { executions: 3, projects: 1 },
      periodStart: "2026-03-01T00:00:00.000Z",
      resetsAt: "2026-04-01T00:00:00.000Z",
    });
  });

  it("getUsage answers the meters by day and by project", async () => {
    const range = {
      workspaceId: eve.personalWorkspaceId,
      from: "2026-03-01T00:00:00.000Z",
      to: "2026-03-31T23:59:59.000Z",
    };
    const byDay = await callRpcAs(weft, eve, "billing.getUsage", { ...range, groupBy: "day" });
    expect(byDay.status).toBe(200);
    const usage = byDay.json as { totals: Record<string, unknown>; rows: { day: string; executions: number }[] };
    expect(usage.totals).toMatchObject({
      executions: 3,
      executionsByTrigger: { webhook: 2, api: 1 },
      activeProjects: 1,
    });
    // Every UTC day of the range, in order, the days without usage with zeros.
    expect(usage.rows).toHaveLength(31);
    expect(usage.rows[0]).toEqual({
      day: "2026-03-01",
      executions: 0,
      executionsByTrigger: {},
      stepSeconds: 0,
      bytes: 0,
      events: 0,
    });
    expect(usage.rows.filter((row) => row.executions > 0).map((row) => [row.day, row.executions])).toEqual([
      ["2026-03-30", 1],
      ["2026-03-31", 2],
    ]);
    expect(usage.rows.map((row) => row.day)).toEqual(
      Array.from({ length: 31 }, (_, index) => `2026-03-${String(index + 1).padStart(2, "0")}`),
    );
    const byProject = await callRpcAs(weft, eve, "billing.getUsage", { ...range, groupBy: "project" });
    expect((byProject.json as { rows: unknown[] }).rows).toEqual([
      expect.objectContaining({ projectId, executions: 3, bytes: expect.any(Number) }),
    ]);
  });

  it("refuses from after to, a range over 400 days, another workspace and a member", async () => {
    const base = { workspaceId: eve.personalWorkspaceId, groupBy: "day" };
    const backwards = await callRpcAs(weft, eve, "billing.getUsage", {
      ...base,
      from: "2026-03-02T00:00:00.000Z",
      to: "2026-03-01T00:00:00.000Z",
    });
    expect(backwards.status).toBe(400);
    const long = await callRpcAs(weft, eve, "billing.getUsage", {
      ...base,
      from: "2025-01-01T00:00:00.000Z",
      to: "2026-03-01T00:00:00.000Z",
    });
    expect(long.status).toBe(400);
    const stranger = await createTestIdentity(weft, "stranger@billing.test");
    const foreign = await callRpcAs(weft, stranger, "billing.getPlan", { workspaceId: eve.personalWorkspaceId });
    expect(foreign.status).toBe(404);

    const team = await createTeamWorkspace(weft, eve, "Team");
    const member = await createTestIdentity(weft, "member@billing.test");
    await joinWorkspace(weft, { workspaceId: team, by: eve, member, role: "member" });
    const asMember = await callRpcAs(weft, member, "billing.getPlan", { workspaceId: team });
    expect(asMember.status).toBe(403);
    const asOwner = await callRpcAs(weft, eve, "billing.getPlan", { workspaceId: team });
    expect(asOwner.status).toBe(200);
  });

  it("closes a month once however many workers close it at the same time, and lists the statement", async () => {
    weft.clock.set(new Date("2026-04-01T00:00:05.000Z"));
    const catalogue = weft.platform.context.config.billing;
    const now = weft.clock.now();
    const written = await Promise.all(
      Array.from({ length: 4 }, () => closePreviousMonth(weft.database.db, { catalogue, now })),
    );
    const statements = await weft.database.db
      .select()
      .from(usageStatements)
      .where(eq(usageStatements.workspaceId, eve.personalWorkspaceId));
    expect(statements).toHaveLength(1);
    expect(written.reduce((a, b) => a + b, 0)).toBe(1);
    expect(await closePreviousMonth(weft.database.db, { catalogue, now })).toBe(0);

    const listed = await callRpcAs(weft, eve, "billing.listStatements", { workspaceId: eve.personalWorkspaceId });
    expect(listed.status).toBe(200);
    expect(listed.json).toMatchObject({
      data: [
        {
          periodStart: "2026-03-01T00:00:00.000Z",
          periodEnd: "2026-04-01T00:00:00.000Z",
          plan: { name: "small" },
          totals: { executions: 3, activeProjects: 1 },
          projects: [{ projectId, executions: 3 }],
        },
      ],
    });
    expect(listed.json).not.toHaveProperty("nextCursor");
  });
});

describe("usage of a deleted project", () => {
  it("stays counted: deleting the project counts its unfinished executions and rolls them up under its workspace", async () => {
    weft.clock.set(new Date("2026-05-10T12:00:00.000Z"));
    const fay = await createTestIdentity(weft, "fay@billing.test");
    const projectId = await deployedProject(fay, "gone");
    expect((await webhook(projectId)).status).toBe(202);
    expect((await webhook(projectId)).status).toBe(202);
    const deleted = await callRpcAs(weft, fay, "projects.delete", { projectId });
    expect(deleted.status).toBe(200);

    const usage = await callRpcAs(weft, fay, "billing.getUsage", {
      workspaceId: fay.personalWorkspaceId,
      from: "2026-05-01T00:00:00.000Z",
      to: "2026-05-31T23:59:59.000Z",
      groupBy: "project",
    });
    expect(usage.status).toBe(200);
    expect((usage.json as { rows: unknown[] }).rows).toEqual([
      expect.objectContaining({ projectId, executions: 2, executionsByTrigger: { webhook: 2 } }),
    ]);
    const [pending] = await weft.database.db
      .select({ n: count() })
      .from(usageDeltas)
      .where(eq(usageDeltas.projectId, projectId));
    expect(pending?.n).toBe(0);
  });
});
