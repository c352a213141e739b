import { bundleConfig, callRpc, signedInTestPlatform } from "@weft/testing";
import { beforeAll, describe, expect, it } from "vitest";

const signedIn = signedInTestPlatform("flow@example.com");
let projectId: string;

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({ name: "digest", rateLimit: { limit: 1, period: "1h", key: "$.userId" }, async run() { return 1; } }),
    workflow({ name: "reindex", debounce: { period: "1h", key: "$.docId" }, async run() { return 1; } }),
  ],
});
`;
const manifest = {
  version: 1,
  workflows: [
    { name: "digest", rateLimit: { limit: 1, periodMs: 3_600_000, key: "$.userId" } },
    { name: "reindex", debounce: { periodMs: 3_600_000, key: "$.docId" } },
  ],
};

async function call<T>(procedure: string, input: unknown): Promise<{ status: number; json: T }> {
  const result = await callRpc(signedIn.weft.url, procedure, input, { token: signedIn.identity.credential });
  return { status: result.status, json: result.json as T };
}

beforeAll(async () => {
  projectId = (await call<{ id: string }>("projects.create", { name: "Flow" })).json.id;
  const deployed = await call("deployments.create", { projectId, manifest, bundle: await bundleConfig(source) });
  expect(deployed.status).toBe(200);
});

describe("flow control over RPC", () => {
  it("answers a start over the rate limit as skipped, and lists it cancelled", async () => {
    const first = await call<{ executionId: string; flowControl?: string }>("workflows.run", {
      projectId,
      workflow: "digest",
      input: { userId: "u1" },
    });
    expect(first.json.flowControl).toBeUndefined();
    const second = await call<{ executionId: string; flowControl?: string }>("workflows.run", {
      projectId,
      workflow: "digest",
      input: { userId: "u1" },
    });
    expect(second.json).toMatchObject({ flowControl: "skipped" });
    const listed = await call<{ results: { id: string; status: string }[] }>("workflows.listExecutions", {
      projectId,
      workflow: "digest",
      status: "cancelled",
    });
    expect(listed.json.results.map((item) => item.id)).toEqual([second.json.executionId]);
    const skipped = await call<{ error: { name: string; message: string } }>("workflows.getExecution", {
      executionId: second.json.executionId,
    });
    expect(skipped.json.error).toMatchObject({ name: "RateLimitedError" });
  });

  it("answers a debounced start with the queued execution it moved", async () => {
    const first = await call<{ executionId: string; flowControl?: string }>("workflows.run", {
      projectId,
      workflow: "reindex",
      input: { docId: "d1", v: 1 },
    });
    const second = await call<{ executionId: string; flowControl?: string }>("workflows.run", {
      projectId,
      workflow: "reindex",
      input: { docId: "d1", v: 2 },
    });
    expect(second.json).toEqual({ executionId: first.json.executionId, flowControl: "debounced" });
    const execution = await call<{ input: unknown; status: string }>("workflows.getExecution", {
      executionId: first.json.executionId,
    });
    expect(execution.json).toMatchObject({ status: "queued", input: { docId: "d1", v: 2 } });
  });

  it("refuses a deployment whose throttle has no limit, naming the field", async () => {
    const refused = await call<{ code: string; data: { issues: { path: string }[] } }>("deployments.create", {
      projectId,
      manifest: { version: 1, workflows: [{ name: "digest", throttle: { limit: 0, periodMs: 1000 } }] },
      bundle: await bundleConfig(source),
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.json.data.issues)).toContain("throttle");
    expect(JSON.stringify(refused.json.data.issues)).toContain("limit");
  });
});
