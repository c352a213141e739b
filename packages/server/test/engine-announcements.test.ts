import { type EngineHarness, startEngineHarness, testServerUrl } from "@weft/testing";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { executionSteps, executions, projects, workspaces } from "../src/db/schema/index.ts";
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
/** The account that pays for the project's workspace, which the announcements name. */
let accountId: string | undefined;
beforeAll(async () => {
  engine = await startEngineHarness();
  await engine.deploy("prj_announced", source, { version: 1, workflows: [{ name: "noop" }, { name: "approved" }] });
  const [project] = await engine.database.db
    .select({ accountId: workspaces.billingAccountId })
    .from(projects)
    .innerJoin(workspaces, eq(workspaces.id, projects.workspaceId))
    .where(eq(projects.id, "prj_announced"));
  accountId = project?.accountId;
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

// So that a worker running that account at its share need not claim (`claimable-accounts.ts`).
describe("the announcement that executions became claimable", () => {
  it("names the account that pays for the workspace of new executions", async () => {
    await announcedDuring(async () => {
      const id = await engine.run("prj_announced", "noop", {});
      await engine.waitFor(id, (row) => row.status === "succeeded");
    }, [accountId]);
  });

  it("names the account of an execution whose token was completed", async () => {
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
    }, [accountId]);
    expect((await engine.waitFor(id, (row) => row.status === "succeeded")).output).toEqual({ ok: true, data: "yes" });
  });
});

// On the embedded database the worker hears an announcement inside the commit that made it, on the
// one connection: claimed there and then, the claim ran before whoever committed went on (a
// webhook's answer waited for it). On PostgreSQL it arrives later, over the network.
describe.skipIf(testServerUrl() !== undefined)("the claim an announcement starts (embedded database)", () => {
  it("waits until the commit that announced the execution has returned to its caller", async () => {
    for (let run = 0; run < 3; run++) {
      const id = await engine.run("prj_announced", "noop", {});
      const [row] = await engine.database.db
        .select({ status: executions.status })
        .from(executions)
        .where(eq(executions.id, id));
      expect(row?.status).toBe("queued");
      await engine.waitFor(id, (finished) => finished.status === "succeeded");
    }
  });
});
