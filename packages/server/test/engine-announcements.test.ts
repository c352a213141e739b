import { type EngineHarness, startEngineHarness } from "@weft/testing";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { executionSteps, projects } from "../src/db/schema/index.ts";
import { executionsChannel } from "../src/engine/channels.ts";
import { completeWaitToken } from "../src/wait-tokens/complete-wait-token.ts";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({ name: "noop", async run() { return 1; } }),
    workflow({
      name: "approved",
      async run(_input: unknown, ctx) {
        const token = await ctx.createToken("approval", { timeout: "1d" });
        await ctx.step("ask", () => token.id);
        return await ctx.waitForToken("approval");
      },
    }),
  ],
});
`;

let engine: EngineHarness;
let workspaceId: string | undefined;
beforeAll(async () => {
  engine = await startEngineHarness();
  await engine.deploy("prj_announced", source, { version: 1, workflows: [{ name: "noop" }, { name: "approved" }] });
  const [project] = await engine.database.db
    .select({ workspaceId: projects.workspaceId })
    .from(projects)
    .where(eq(projects.id, "prj_announced"));
  workspaceId = project?.workspaceId;
});
afterAll(async () => {
  await engine.stop();
});

/** The payloads announced on the executions channel while `act` runs and shortly after. */
async function announcedDuring(act: () => Promise<void>, expected: unknown[]): Promise<void> {
  const payloads: string[] = [];
  const unlisten = await engine.database.listen(executionsChannel, (payload) => payloads.push(payload));
  try {
    await act();
    await vi.waitFor(() => expect(payloads).toEqual(expected), { timeout: 5_000 });
  } finally {
    await unlisten();
  }
}

// So that a worker running that workspace at its share need not claim (`claimable-workspaces.ts`).
describe("the announcement that executions became claimable", () => {
  it("names the workspace of new executions", async () => {
    await announcedDuring(async () => {
      const id = await engine.run("prj_announced", "noop", {});
      await engine.waitFor(id, (row) => row.status === "succeeded");
    }, [workspaceId]);
  });

  it("names the workspace of an execution whose token was completed", async () => {
    const id = await engine.run("prj_announced", "approved", {});
    await engine.waitFor(id, (row) => row.status === "waiting");
    const [ask] = await engine.database.db
      .select()
      .from(executionSteps)
      .where(and(eq(executionSteps.executionId, id), eq(executionSteps.name, "ask")));
    const tokenId = ask?.result.value;
    if (typeof tokenId !== "string") throw new Error("no token id stored");
    await announcedDuring(async () => {
      expect(await completeWaitToken(engine.database.db, engine, { tokenId, data: "yes" })).toMatchObject({ ok: true });
    }, [workspaceId]);
    expect((await engine.waitFor(id, (row) => row.status === "succeeded")).output).toEqual({ ok: true, data: "yes" });
  });
});
