import { bundleConfig, callRpc, signedInTestPlatform } from "@weft/testing";
import { beforeAll, describe, expect, it } from "vitest";

/** `workflows.runMany` over HTTP against a started platform: one transaction, all or none. */

const signedIn = signedInTestPlatform("run-many@example.com", {
  configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
});
let projectId: string;

const config = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "square",
      input: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      async run(input: { n: number }, ctx) {
        return ctx.step("square", () => input.n * input.n);
      },
    }),
  ],
});
`;
const manifest = {
  version: 1,
  workflows: [
    { name: "square", inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } },
  ],
};

async function call<T>(procedure: string, input: unknown): Promise<{ status: number; json: T }> {
  const result = await callRpc(signedIn.weft.url, procedure, input, { token: signedIn.identity.credential });
  return { status: result.status, json: result.json as T };
}

interface ExecutionJson {
  status: string;
  output: unknown;
  tags: string[];
}

async function finished(executionId: string): Promise<ExecutionJson> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { json } = await call<ExecutionJson>("workflows.getExecution", { executionId });
    if (["succeeded", "failed", "cancelled", "expired"].includes(json.status)) return json;
    if (Date.now() > deadline) throw new Error(`execution did not finish: ${JSON.stringify(json)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function countTagged(tag: string): Promise<number> {
  const { json } = await call<{ totalCount: number }>("workflows.listExecutions", { projectId, tags: [tag] });
  return json.totalCount;
}

beforeAll(async () => {
  projectId = (await call<{ id: string }>("projects.create", { name: "Run many" })).json.id;
  const deployed = await call("deployments.create", { projectId, manifest, bundle: await bundleConfig(config) });
  expect(deployed.status).toBe(200);
});

describe("workflows.runMany", () => {
  it("starts one execution per input, in order, each with the batch's tags", async () => {
    const { status, json } = await call<{ executionIds: string[] }>("workflows.runMany", {
      projectId,
      workflow: "square",
      inputs: [{ n: 2 }, { n: 3 }, { n: 4 }],
      tags: ["batch-a"],
    });
    expect(status).toBe(200);
    expect(new Set(json.executionIds).size).toBe(3);
    const ended = await Promise.all(json.executionIds.map(finished));
    expect(ended.map((execution) => execution.output)).toEqual([4, 9, 16]);
    expect(ended.every((execution) => execution.tags.join() === "batch-a")).toBe(true);
  });

  it("starts 1,000 in one call (delayed, so that they wait queued)", async () => {
    const inputs = Array.from({ length: 1000 }, (_, n) => ({ n }));
    const { status, json } = await call<{ executionIds: string[] }>("workflows.runMany", {
      projectId,
      workflow: "square",
      inputs,
      delay: "1h",
      tags: ["thousand"],
    });
    expect(status).toBe(200);
    expect(json.executionIds).toHaveLength(1000);
    expect(await countTagged("thousand")).toBe(1000);
  });

  it("refuses a batch with one bad input, naming it, and starts none", async () => {
    const refused = await call<{ message: string; data?: { issues?: { path: string }[] } }>("workflows.runMany", {
      projectId,
      workflow: "square",
      inputs: [{ n: 1 }, { n: "two" }],
      tags: ["refused-batch"],
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.json)).toContain("inputs.1");
    expect(await countTagged("refused-batch")).toBe(0);
  });

  it.each([
    ["more than 1,000 inputs", { inputs: Array.from({ length: 1001 }, () => ({ n: 1 })) }, "inputs"],
    ["no input", { inputs: [] }, "inputs"],
    ["a delay over a year", { inputs: [{ n: 1 }], delay: "400d" }, "delay"],
    ["a ttl under a second", { inputs: [{ n: 1 }], ttl: 10 }, "ttl"],
    ["11 tags", { inputs: [{ n: 1 }], tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, "tags"],
  ])("refuses %s, naming the field, and starts none", async (_what, fields, field) => {
    const before = (await call<{ totalCount: number }>("workflows.listExecutions", { projectId })).json.totalCount;
    const refused = await call("workflows.runMany", { projectId, workflow: "square", ...fields });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.json)).toContain(field);
    const after = (await call<{ totalCount: number }>("workflows.listExecutions", { projectId })).json.totalCount;
    expect(after).toBe(before);
  });
});
