import {
  callRpc,
  createTestIdentity,
  deployManifest,
  startTestPlatform,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assignPlan } from "../src/billing/assign-plan.ts";
import { quotaCacheMs } from "../src/billing/quota-gate.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";

/** Admission is where a quota refuses; what was admitted before the quota ran out runs to its end. */

const config = `import { defineConfig, webhook, workflow } from "@weft/sdk";
const nap = workflow({
  name: "nap",
  async run(input: { n: number }, ctx) {
    await ctx.sleep("rest", "1m");
    return ctx.step("wake", async () => input.n + 1);
  },
});
export default defineConfig({ workflows: [nap], webhooks: [webhook({ name: "hook", workflow: "nap" })] });
`;
const manifest = { version: 1 as const, workflows: [{ name: "nap" }], webhooks: [{ name: "hook", workflow: "nap" }] };

let weft: TestPlatform;
let owner: TestIdentity;

beforeAll(async () => {
  weft = await startTestPlatform({ env: { WEFT_PLANS: JSON.stringify([{ name: "two", executionsPerMonth: 2 }]) } });
  weft.clock.set(new Date("2026-03-10T12:00:00.000Z"));
  owner = await createTestIdentity(weft, "admitted@billing.test");
});
afterAll(async () => {
  await weft?.stop();
});

async function statusOf(executionId: string): Promise<string> {
  const result = await callRpc(weft.url, "workflows.getExecution", { executionId }, { token: owner.credential });
  return (result.json as { status: string }).status;
}

async function until(executionIds: string[], status: string): Promise<void> {
  expect(executionIds.length).toBeGreaterThan(0);
  for (;;) {
    const statuses = await Promise.all(executionIds.map(statusOf));
    if (statuses.every((current) => current === status)) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const hook = (projectId: string, n: number) =>
  fetch(`${weft.url}/triggers/webhooks/${projectId}/hook`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ n }),
  });

describe("a quota reached while executions are under way", () => {
  it("refuses new executions, and the ones admitted before wake up and finish", async () => {
    const created = await callRpc(
      weft.url,
      "projects.create",
      { name: "admitted", workspaceId: owner.personalWorkspaceId },
      { token: owner.credential },
    );
    const projectId = (created.json as { id: string }).id;
    await deployManifest(weft, projectId, manifest, { configSource: config });

    const admitted: string[] = [];
    for (const n of [1, 2, 3]) {
      const answer = await hook(projectId, n);
      expect(answer.status).toBe(202);
      admitted.push(...((await answer.json()) as { executionIds: string[] }).executionIds);
    }
    await until(admitted, "sleeping");

    valueOrThrow(
      await assignPlan(weft.database.db, weft.platform.context.config.billing, {
        workspaceId: owner.personalWorkspaceId,
        plan: "two",
      }),
    );
    weft.clock.advance(quotaCacheMs + 1);
    expect((await hook(projectId, 4)).status).toBe(429);

    weft.clock.advance(60_000);
    await until(admitted, "succeeded");
    expect((await hook(projectId, 5)).status).toBe(429);
  }, 60_000);
});
