import { type EngineHarness, startEngineHarness } from "@weft/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executions } from "../src/db/schema/index.ts";

/** Child workflows pass the plan's execution quota as every other start does. */

let engine: EngineHarness;
const project = "prj_child_quota";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
const leaf = workflow({ name: "leaf", async run() { return 1; } });
export default defineConfig({
  workflows: [
    leaf,
    workflow({
      name: "many",
      async run(input: { count: number }, ctx) {
        try {
          return await ctx.invokeMany("leaves", leaf, Array.from({ length: input.count }, () => ({})));
        } catch (error) {
          return { name: (error as Error).name, message: (error as Error).message };
        }
      },
    }),
  ],
});
`;

beforeAll(async () => {
  engine = await startEngineHarness({
    billing: { plans: [{ name: "small", executionsPerMonth: 4, projects: 2 }], defaultPlan: "small" },
  });
  await engine.deploy(project, source, { version: 1, workflows: [{ name: "leaf" }, { name: "many" }] });
});

afterAll(async () => {
  await engine.stop();
});

const ended = (row: { status: string }) => ["succeeded", "failed", "cancelled", "expired"].includes(row.status);

describe("a child workflow's start", () => {
  it("is refused once the plan's executions per month are used up, naming the quota, and starts nothing", async () => {
    // One parent and three children: the month's four executions.
    const first = await engine.waitFor(await engine.run(project, "many", { count: 3 }), ended);
    expect(first.output).toEqual([1, 1, 1]);
    const id = await engine.run(project, "many", { count: 1 });
    const done = await engine.waitFor(id, ended);
    expect(done.output).toMatchObject({ name: "ChildWorkflowStartError" });
    expect((done.output as { message: string }).message).toMatch(/^quota: .*executionsPerMonth/);
    expect(await engine.database.db.select().from(executions).where(eq(executions.parentExecutionId, id))).toEqual([]);
  });
});
