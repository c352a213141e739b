import { startEngineHarness } from "@weft/testing";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { projects } from "../src/db/schema/index.ts";
import { executionsChannel } from "../src/engine/channels.ts";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({ workflows: [workflow({ name: "noop", async run() { return 1; } })] });
`;

describe("the announcement of new executions", () => {
  it("names the workspace they belong to, so that a worker with that workspace at its share need not claim", async () => {
    const engine = await startEngineHarness();
    try {
      await engine.deploy("prj_announced", source, { version: 1, workflows: [{ name: "noop" }] });
      const [project] = await engine.database.db
        .select({ workspaceId: projects.workspaceId })
        .from(projects)
        .where(eq(projects.id, "prj_announced"));
      const payloads: string[] = [];
      const unlisten = await engine.database.listen(executionsChannel, (payload) => payloads.push(payload));
      try {
        const id = await engine.run("prj_announced", "noop", {});
        await engine.waitFor(id, (row) => row.status === "succeeded");
        await vi.waitFor(() => expect(payloads).toEqual([project?.workspaceId]), { timeout: 5_000 });
      } finally {
        await unlisten();
      }
    } finally {
      await engine.stop();
    }
  });
});
