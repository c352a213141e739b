import { type EngineHarness, startEngineHarness } from "@weft/testing";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executions } from "../src/db/schema/index.ts";

/** An execution starts at most 10,000 children, however it asks for them. */

let engine: EngineHarness;
const project = "prj_child_bound";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
const leaf = workflow({ name: "leaf", async run() { return 1; } });
export default defineConfig({
  workflows: [
    leaf,
    workflow({
      name: "eleven-thousand",
      async run(_input: unknown, ctx) {
        const batch = Array.from({ length: 1000 }, () => ({}));
        try {
          // Delayed a day: the children wait queued, none runs.
          await Promise.all(
            Array.from({ length: 11 }, (_, b) => ctx.invokeMany("batch" + b, leaf, batch, { delay: "1d" })),
          );
          return "no error";
        } catch (error) {
          return { name: (error as Error).name, message: (error as Error).message };
        }
      },
    }),
  ],
});
`;

beforeAll(async () => {
  engine = await startEngineHarness();
  await engine.deploy(project, source, { version: 1, workflows: [{ name: "leaf" }, { name: "eleven-thousand" }] });
});

afterAll(async () => {
  await engine.stop();
});

describe("the children of one execution", () => {
  it("stop at 10,000: the start past it is refused, naming the bound", async () => {
    const id = await engine.run(project, "eleven-thousand", {});
    const done = await engine.waitFor(id, (row) => row.status === "succeeded" || row.status === "failed", 120_000);
    expect(done.output).toEqual({
      name: "ChildWorkflowStartError",
      message: "an execution starts at most 10000 child executions, all its attempts together",
    });
    const [{ started } = { started: 0 }] = await engine.database.db
      .select({ started: sql<number>`count(*)::int` })
      .from(executions)
      .where(eq(executions.parentExecutionId, id));
    expect(started).toBe(10_000);
  }, 180_000);
});
