import { deployManifest, executionCount, signedInTestPlatform } from "@weft/testing";
import { count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { activeDeployments, deployments, spans } from "../src/db/schema/index.ts";

const signedIn = signedInTestPlatform("owner@example.com");

describe("deleting a project", () => {
  it("takes its deployments, executions and traces with it, and its webhooks stop answering", async () => {
    const created = await signedIn.call("projects.create", { name: "doomed" });
    expect(created.status).toBe(200);
    const projectId = (created.json as { id: string }).id;
    await deployManifest(signedIn.weft, projectId, {
      version: 1,
      workflows: [{ name: "handle" }],
      webhooks: [{ name: "hook", workflow: "handle" }],
    });
    const hookUrl = `${signedIn.weft.url}/triggers/webhooks/${projectId}/hook`;
    expect((await fetch(hookUrl, { method: "POST", body: "{}" })).status).toBe(202);
    expect(await executionCount(signedIn.weft, projectId)).toBe(1);

    const deleted = await signedIn.call("projects.delete", { projectId });
    expect(deleted.status).toBe(200);

    expect((await fetch(hookUrl, { method: "POST", body: "{}" })).status).toBe(404);
    const { db } = signedIn.weft.database;
    expect(await executionCount(signedIn.weft, projectId)).toBe(0);
    const [left] = await db.select({ n: count() }).from(deployments).where(eq(deployments.projectId, projectId));
    expect(left?.n).toBe(0);
    const [active] = await db
      .select({ n: count() })
      .from(activeDeployments)
      .where(eq(activeDeployments.projectId, projectId));
    expect(active?.n).toBe(0);
    const [traced] = await db.select({ n: count() }).from(spans).where(eq(spans.projectId, projectId));
    expect(traced?.n).toBe(0);
  });
});
