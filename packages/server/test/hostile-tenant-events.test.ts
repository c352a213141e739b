import { bundleConfig, callRpc, createTestIdentity, signedInTestPlatform, type TestIdentity } from "@weft/testing";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * Events as a tenant could turn them on others or on the platform: a send reaches only its own
 * project's waits and executions, whatever the names and values another tenant uses; one send
 * starts at most one execution per subscribed workflow; a workflow's subscriptions are bounded.
 */

const signedIn = signedInTestPlatform("victim@example.com", {
  configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
});
let attacker: TestIdentity;

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "awaits-payment",
      run: (input: { orderId: string }, ctx) =>
        ctx.waitForEvent("paid", { event: "order.paid", match: { path: "$.data.orderId", equals: input.orderId }, timeout: "1h" }),
    }),
    workflow({
      name: "cancellable",
      cancelOn: [{ event: "order.cancelled" }],
      async run(_input: unknown, ctx) {
        await ctx.sleep("nap", "7d");
      },
    }),
    workflow({
      name: "cancellable-order",
      cancelOn: [{ event: "order.cancelled", match: { event: "$.data.orderId", input: "$.orderId" } }],
      async run(_input: { orderId: string }, ctx) {
        await ctx.sleep("nap", "7d");
      },
    }),
    workflow({ name: "echo", on: Array.from({ length: 20 }, () => ({ event: "order.created" })), run: async (e: unknown) => e }),
  ],
});
`;

const manifest = {
  version: 1,
  workflows: [
    { name: "awaits-payment" },
    { name: "cancellable", cancelOn: [{ event: "order.cancelled" }] },
    {
      name: "cancellable-order",
      cancelOn: [{ event: "order.cancelled", match: { event: "$.data.orderId", input: "$.orderId" } }],
    },
    { name: "echo", on: Array.from({ length: 20 }, () => ({ event: "order.created" })) },
  ],
};

async function as<T>(token: string, procedure: string, input: unknown) {
  const result = await callRpc(signedIn.weft.url, procedure, input, { token });
  return { status: result.status, json: result.json as T };
}

async function deployedProject(token: string, name: string): Promise<string> {
  const projectId = (await as<{ id: string }>(token, "projects.create", { name })).json.id;
  const deployed = await as(token, "deployments.create", { projectId, manifest, bundle: await bundleConfig(source) });
  expect(deployed.status).toBe(200);
  return projectId;
}

async function until(token: string, executionId: string, status: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = await as<{ status: string }>(token, "workflows.getExecution", { executionId });
    if (found.json.status === status) return;
    if (Date.now() > deadline) throw new Error(`${executionId} did not reach ${status}: ${found.json.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  attacker = await createTestIdentity(signedIn.weft, "attacker@example.com");
});

describe("a send reaches its own project only", () => {
  it("resumes and cancels nothing of another tenant's project, whose waits use the same names and values", async () => {
    const victim = signedIn.identity.credential;
    const victimProject = await deployedProject(victim, "Victim");
    const attackerProject = await deployedProject(attacker.credential, "Attacker");
    const run = async (workflow: string, input: unknown) =>
      (await as<{ executionId: string }>(victim, "workflows.run", { projectId: victimProject, workflow, input })).json
        .executionId;
    const waiting = await run("awaits-payment", { orderId: "o-1" });
    const sleeping = await run("cancellable", {});
    await until(victim, waiting, "waiting");
    await until(victim, sleeping, "sleeping");

    const paid = await as<{ resumed: number }>(attacker.credential, "events.send", {
      projectId: attackerProject,
      name: "order.paid",
      data: { orderId: "o-1" },
    });
    expect(paid.json.resumed).toBe(0);
    const cancelled = await as<{ cancelled: number }>(attacker.credential, "events.send", {
      projectId: attackerProject,
      name: "order.cancelled",
    });
    expect(cancelled.json.cancelled).toBe(0);
    await until(victim, waiting, "waiting");
    await until(victim, sleeping, "sleeping");

    // Sending into the other tenant's project is refused as if it did not exist.
    const intruding = await as(attacker.credential, "events.send", { projectId: victimProject, name: "order.paid" });
    expect(intruding.status).toBe(404);
  });
});

describe("a cancelOn match reaches its own project only", () => {
  it("cancels nothing of another tenant's executions with the same workflow, event and value", async () => {
    const victim = signedIn.identity.credential;
    const victimProject = await deployedProject(victim, "Victim orders");
    const attackerProject = await deployedProject(attacker.credential, "Attacker orders");
    const started = await as<{ executionId: string }>(victim, "workflows.run", {
      projectId: victimProject,
      workflow: "cancellable-order",
      input: { orderId: "o-1" },
    });
    const executionId = started.json.executionId;
    await until(victim, executionId, "sleeping");
    const ownRun = await as<{ executionId: string }>(attacker.credential, "workflows.run", {
      projectId: attackerProject,
      workflow: "cancellable-order",
      input: { orderId: "o-1" },
    });
    await until(attacker.credential, ownRun.json.executionId, "sleeping");

    const sent = await as<{ cancelled: number }>(attacker.credential, "events.send", {
      projectId: attackerProject,
      name: "order.cancelled",
      data: { orderId: "o-1" },
    });
    expect(sent.json.cancelled).toBe(1);
    await until(attacker.credential, ownRun.json.executionId, "cancelled");
    await until(victim, executionId, "sleeping");
  });
});

describe("fan-out", () => {
  it("starts one execution per subscribed workflow, however many times it lists the event", async () => {
    const token = signedIn.identity.credential;
    const projectId = await deployedProject(token, "Fan-out");
    const sent = await as<{ executions: unknown[] }>(token, "events.send", { projectId, name: "order.created" });
    expect(sent.json.executions).toHaveLength(1);
  });

  it("refuses a workflow subscribed more than 20 times, naming `on`", async () => {
    const token = signedIn.identity.credential;
    const projectId = (await as<{ id: string }>(token, "projects.create", { name: "Too many" })).json.id;
    const refused = await as(token, "deployments.create", {
      projectId,
      manifest: { version: 1, workflows: [{ name: "echo", on: Array.from({ length: 21 }, () => ({ event: "a" })) }] },
      bundle: "export default {}",
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      data: { issues: expect.arrayContaining([expect.objectContaining({ path: ["manifest", "workflows", 0, "on"] })]) },
    });
  });
});
