import {
  callRpc,
  callRpcAs,
  createTeamWorkspace,
  createTestIdentity,
  deployManifest,
  type EngineHarness,
  executionCount,
  startEngineHarness,
  startTestPlatform,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import { and, count, eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWorkspace } from "../src/access/create-workspace.ts";
import { assignPlan } from "../src/billing/assign-plan.ts";
import { defaultWorkspacesPerAccount } from "../src/billing/workspace-quota.ts";
import { executions, projects, workspaces } from "../src/db/schema/index.ts";
import { findOrCreateAccount } from "../src/identity/accounts.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";

/** One workflow per bundle: `stuck` waits inside its step until the sandbox is ended, `quick` answers at once. */
function configSource(name: "stuck" | "quick"): string {
  const body =
    name === "stuck"
      ? `await ctx.step("hold", async () => { for (;;) await new Promise((resolve) => setTimeout(resolve, 50)); });`
      : `return ctx.step("answer", () => 42);`;
  return `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({ workflows: [
  workflow({ name: ${JSON.stringify(name)}, retries: { maxAttempts: 1 }, async run(input: any, ctx: any) {\n${body}\n} }),
] });
`;
}

const manifestOf = (name: string) => ({
  version: 1,
  workflows: [{ name, retries: { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 } }],
});

describe("hostile tenant: one account cannot take every slot through many workspaces", () => {
  let engine: EngineHarness;
  /** The projects of account A, one in each of its five team workspaces. */
  const projectsOfA = Array.from({ length: 5 }, (_, index) => `prj_account_a_${index}`);
  let accountOfA: string;

  beforeAll(async () => {
    engine = await startEngineHarness({ concurrency: 8, workspaceShare: 0.5 });
    const { db } = engine.database;
    const deps = { clock: engine.clock, ids: engine.ids, config: { billing: { plans: [], defaultPlan: "unlimited" } } };
    const owner = await db.transaction((tx) => findOrCreateAccount(tx, deps, "a@tenants.weft.invalid"));
    accountOfA = owner.accountId;
    for (const [index, projectId] of projectsOfA.entries()) {
      const workspace = valueOrThrow(
        await createWorkspace(db, deps, { name: `a-${index}`, actor: { accountId: owner.accountId } }),
      );
      const now = engine.clock.now();
      await db.insert(projects).values({
        id: projectId,
        workspaceId: workspace.id,
        name: projectId,
        createdByAccountId: owner.accountId,
        createdAt: now,
        updatedAt: now,
      });
      await engine.deploy(projectId, configSource("stuck"), manifestOf("stuck"));
    }
    await engine.deploy("prj_account_b", configSource("quick"), manifestOf("quick"), {
      owner: "b@tenants.weft.invalid",
    });
  });
  afterAll(async () => {
    await engine.stop();
  });

  const runningOfA = async () => {
    const [row] = await engine.database.db
      .select({ n: count() })
      .from(executions)
      .where(and(inArray(executions.projectId, projectsOfA), eq(executions.status, "running")));
    return row?.n ?? 0;
  };

  it("runs account B's execution while 20 of account A's, in 5 workspaces, are stuck", async () => {
    const paidBy = await engine.database.db
      .selectDistinct({ accountId: workspaces.billingAccountId, workspaceId: workspaces.id })
      .from(projects)
      .innerJoin(workspaces, eq(workspaces.id, projects.workspaceId))
      .where(inArray(projects.id, projectsOfA));
    expect(paidBy).toHaveLength(5);
    expect(new Set(paidBy.map((row) => row.accountId))).toEqual(new Set([accountOfA]));
    for (const projectId of projectsOfA) {
      for (let i = 0; i < 4; i += 1) await engine.run(projectId, "stuck", {});
    }
    const deadline = Date.now() + 60_000;
    while ((await runningOfA()) < 4) {
      if (Date.now() > deadline) throw new Error("account A's executions were never claimed");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const id = await engine.run("prj_account_b", "quick", {});
    // A's stuck executions never end, so B finishes only if it was given a slot of its own.
    expect((await engine.waitFor(id, (row) => row.status === "succeeded", 60_000)).output).toBe(42);
    // Half of the 8 slots, however many workspaces A spreads its executions over.
    expect(await runningOfA()).toBe(4);
  }, 150_000);
});

describe("the number of workspaces an account pays for is a plan limit", () => {
  let weft: TestPlatform;
  const plans = [{ name: "free" }, { name: "trio", workspaces: 3 }];

  beforeAll(async () => {
    weft = await startTestPlatform({
      env: { WEFT_ROLES: "auth,api", WEFT_PLANS: JSON.stringify(plans), WEFT_DEFAULT_PLAN: "free" },
    });
  });
  afterAll(async () => {
    await weft.stop();
  });

  const create = (who: TestIdentity, name: string) =>
    callRpc(weft.url, "access.createWorkspace", { name }, { token: who.credential });

  const workspacesPaidBy = async (who: TestIdentity) => {
    const [row] = await weft.database.db
      .select({ n: count() })
      .from(workspaces)
      .where(eq(workspaces.billingAccountId, who.accountId));
    return row?.n ?? 0;
  };

  it("refuses one past the default of a plan that sets none with FORBIDDEN and data.quota, naming the plan", async () => {
    const ada = await createTestIdentity(weft, "ada@workspaces.test");
    // The personal workspace is the first of them.
    for (let n = 1; n < defaultWorkspacesPerAccount; n += 1) await createTeamWorkspace(weft, ada, `team-${n}`);
    const refused = await create(ada, "one-too-many");
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({
      code: "FORBIDDEN",
      data: { quota: { name: "workspaces", limit: defaultWorkspacesPerAccount, used: 10, resetsAt: null } },
    });
    const message = (refused.json as { message: string }).message;
    expect(message).toContain(`The plan "free" of your personal workspace (${ada.personalWorkspaceId}) allows 10`);
    expect(message).toContain(`weft server set-plan ${ada.personalWorkspaceId} <plan>`);
    expect(await workspacesPaidBy(ada)).toBe(defaultWorkspacesPerAccount);
  });

  it("holds an account to its personal workspace's plan, whatever its team workspaces are on", async () => {
    const bob = await createTestIdentity(weft, "bob@workspaces.test");
    const catalogue = weft.platform.context.config.billing;
    valueOrThrow(await assignPlan(weft.database.db, catalogue, { workspaceId: bob.personalWorkspaceId, plan: "trio" }));
    const team = await createTeamWorkspace(weft, bob, "team-1");
    // A team workspace on a larger plan lends its account nothing.
    valueOrThrow(await assignPlan(weft.database.db, catalogue, { workspaceId: team, plan: "free" }));
    await createTeamWorkspace(weft, bob, "team-2");
    const refused = await create(bob, "team-3");
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({
      code: "FORBIDDEN",
      data: { quota: { name: "workspaces", limit: 3, used: 3, resetsAt: null } },
    });
    expect((refused.json as { message: string }).message).toContain(`The plan "trio"`);
    expect(await workspacesPaidBy(bob)).toBe(3);
  });
});

describe("hostile tenant: one account's flood of webhooks refuses its own workspaces, never another tenant", () => {
  let weft: TestPlatform;
  /** The flooder's projects, one in its personal workspace and one in a team workspace it pays for. */
  const flooded: string[] = [];
  let victim: TestIdentity;
  let victimProject: string;

  /** A project of `owner`'s (in `workspaceId`) whose webhook `hook` starts `workflow`. */
  async function projectWithWebhook(
    owner: TestIdentity,
    name: string,
    workflow: "stuck" | "quick",
    workspaceId?: string,
  ) {
    const created = await callRpcAs(weft, owner, "projects.create", { name, workspaceId });
    const projectId = (created.json as { id: string }).id;
    await deployManifest(
      weft,
      projectId,
      { ...manifestOf(workflow), version: 1, webhooks: [{ name: "hook", workflow }] },
      { configSource: configSource(workflow) },
    );
    return projectId;
  }

  const webhook = (projectId: string) =>
    fetch(`${weft.url}/triggers/webhooks/${projectId}/hook`, { method: "POST", body: "{}" });

  beforeAll(async () => {
    // Two slots per account of a worker of four; a queued execution may wait 5 s.
    weft = await startTestPlatform({
      env: { WEFT_WORKER_CONCURRENCY: "4", WEFT_WORKSPACE_SHARE: "0.5", WEFT_MAX_QUEUE_DELAY: "5" },
    });
    const flooder = await createTestIdentity(weft, "flood@tenants.weft.invalid");
    const team = await createTeamWorkspace(weft, flooder, "flood-team");
    flooded.push(await projectWithWebhook(flooder, "flood-personal", "stuck"));
    flooded.push(await projectWithWebhook(flooder, "flood-team", "stuck", team));
    victim = await createTestIdentity(weft, "victim@tenants.weft.invalid");
    victimProject = await projectWithWebhook(victim, "victim", "quick");
  });
  afterAll(async () => {
    await weft.stop();
  });

  it("answers the flooder 429 in each of its workspaces once its backlog waits past the bound, and the victim 2xx", async () => {
    for (let n = 0; n < 20; n++) expect((await webhook(flooded[n % 2] ?? "")).status).toBe(202);
    const deadline = Date.now() + 20_000;
    const running = async () => {
      const [row] = await weft.database.db
        .select({ n: count() })
        .from(executions)
        .where(and(inArray(executions.projectId, flooded), eq(executions.status, "running")));
      return row?.n ?? 0;
    };
    while ((await running()) < 2) {
      if (Date.now() > deadline) throw new Error("the flooder's executions were never claimed");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    weft.clock.advance(60_000);
    await weft.platform.context.backpressure?.refresh();

    for (const refused of await Promise.all(flooded.map(webhook))) {
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("5");
      expect(await refused.json()).toMatchObject({ error: "backlogged" });
    }
    expect((await executionCount(weft, flooded[0] ?? "")) + (await executionCount(weft, flooded[1] ?? ""))).toBe(20);
    // The flooder's backlog waits behind its own share: the platform is not saturated for anyone else.
    expect((await webhook(victimProject)).status).toBe(202);
    const run = await callRpcAs(weft, victim, "workflows.run", {
      projectId: victimProject,
      workflow: "quick",
      input: {},
    });
    expect(run.status).toBe(200);
    expect(await running()).toBe(2);
  });
});
