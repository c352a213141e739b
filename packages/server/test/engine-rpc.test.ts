import { bundleConfig, callRpc, createTestIdentity, signedInTestPlatform } from "@weft/testing";
import { beforeAll, describe, expect, it } from "vitest";

const signedIn = signedInTestPlatform("owner@example.com", {
  configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
});
let projectId: string;

const config = (factor: number) => `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "echo",
      input: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      async run(input: { n: number }, ctx) {
        ctx.log.info("starting", { n: input.n });
        const scaled = await ctx.step("scale", async () => input.n * ${factor});
        return { scaled };
      },
    }),
  ],
});
`;

const manifest = {
  version: 1,
  workflows: [
    { name: "echo", inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } },
  ],
  webhooks: [{ name: "hook", workflow: "echo", secret: { header: "X-Hook-Secret", value: "hook-secret-value" } }],
};

async function call<T>(
  procedure: string,
  input: unknown,
  token = signedIn.identity.credential,
): Promise<{ status: number; json: T }> {
  const result = await callRpc(signedIn.weft.url, procedure, input, { token });
  return { status: result.status, json: result.json as T };
}

interface ExecutionJson {
  id: string;
  status: string;
  input: unknown;
  output: unknown;
  traceId: string;
  steps: { name: string; output: unknown; durationMs: number; logs: unknown[] }[];
  logs: { message: string }[];
  attempts: { number: number; status: string }[];
}

async function finished(executionId: string): Promise<ExecutionJson> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const { json } = await call<ExecutionJson>("workflows.getExecution", { executionId });
    if (["succeeded", "failed", "cancelled"].includes(json.status)) return json;
    if (Date.now() > deadline) throw new Error(`execution did not finish: ${JSON.stringify(json)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  projectId = (await call<{ id: string }>("projects.create", { name: "Engine" })).json.id;
});

describe("deployments over RPC", () => {
  it("creates numbered deployments, never returns secrets, and rolls back with activate", async () => {
    const first = await call<{ id: string; number: number; active: boolean; manifest: unknown }>("deployments.create", {
      projectId,
      manifest,
      bundle: await bundleConfig(config(2)),
    });
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ number: 1, active: true });
    expect(JSON.stringify(first.json)).not.toContain("hook-secret-value");
    expect(first.json.manifest).toMatchObject({ webhooks: [{ secret: { header: "x-hook-secret" } }] });

    const ran = await call<{ executionId: string }>("workflows.run", { projectId, workflow: "echo", input: { n: 21 } });
    expect((await finished(ran.json.executionId)).output).toEqual({ scaled: 42 });

    const second = await call<{ id: string; number: number }>("deployments.create", {
      projectId,
      manifest,
      bundle: await bundleConfig(config(10)),
    });
    expect(second.json.number).toBe(2);
    const onSecond = await call<{ executionId: string }>("workflows.run", {
      projectId,
      workflow: "echo",
      input: { n: 2 },
    });
    expect((await finished(onSecond.json.executionId)).output).toEqual({ scaled: 20 });

    const activated = await call<{ active: boolean }>("deployments.activate", {
      projectId,
      deploymentId: first.json.id,
    });
    expect(activated.json.active).toBe(true);
    const onFirst = await call<{ executionId: string }>("workflows.run", {
      projectId,
      workflow: "echo",
      input: { n: 2 },
    });
    expect((await finished(onFirst.json.executionId)).output).toEqual({ scaled: 4 });

    const listed = await call<{ results: { number: number; active: boolean }[]; totalCount: number }>(
      "deployments.list",
      { projectId },
    );
    expect(listed.json.results.map((entry) => [entry.number, entry.active])).toEqual([
      [1, true],
      [2, false],
    ]);
    expect(
      (await call<{ deploymentNumber: number }>("workflows.get", { projectId, workflow: "echo" })).json
        .deploymentNumber,
    ).toBe(1);
  });

  it("refuses an invalid manifest with an issue per problem, storing nothing", async () => {
    const before = await call<{ totalCount: number }>("deployments.list", { projectId });
    const refused = await call<{ code: string; data: { issues: { path: (string | number)[] }[] } }>(
      "deployments.create",
      {
        projectId,
        manifest: { version: 1, workflows: [{ name: "Bad Name", timeoutMs: -1 }] },
        bundle: "export default {}",
      },
    );
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe("BAD_REQUEST");
    expect(refused.json.data.issues.map((issue) => issue.path)).toEqual(
      expect.arrayContaining([
        ["manifest", "workflows", 0, "name"],
        ["manifest", "workflows", 0, "timeoutMs"],
      ]),
    );
    expect((await call<{ totalCount: number }>("deployments.list", { projectId })).json.totalCount).toBe(
      before.json.totalCount,
    );
  });

  it("needs deployments:write to deploy", async () => {
    const reader = await createTestIdentity(signedIn.weft, "owner@example.com", {
      scopes: ["projects:read", "projects:write"],
    });
    const refused = await call<{ code: string }>(
      "deployments.create",
      { projectId, manifest, bundle: "export default {}" },
      reader.credential,
    );
    expect(refused.status).toBe(403);
    expect(refused.json.code).toBe("FORBIDDEN");
  });
});

describe("workflows over RPC", () => {
  it("refuses input that does not match the workflow's schema, queuing nothing", async () => {
    const before = await call<{ totalCount: number }>("workflows.listExecutions", { projectId });
    const refused = await call<{ code: string; data: { issues: { path: (string | number)[] }[] } }>("workflows.run", {
      projectId,
      workflow: "echo",
      input: { n: "many" },
    });
    expect(refused.status).toBe(400);
    expect(refused.json.data.issues[0]?.path).toEqual(["input", "n"]);
    expect((await call<{ totalCount: number }>("workflows.listExecutions", { projectId })).json.totalCount).toBe(
      before.json.totalCount,
    );
  });

  it("refuses an input over the 1 MiB body limit with 413 (the 4 MiB input cap lies beyond it), queuing nothing", async () => {
    const before = await call<{ totalCount: number }>("workflows.listExecutions", { projectId });
    const refused = await call<{ code: string }>("workflows.run", {
      projectId,
      workflow: "echo",
      input: { n: 1, pad: "x".repeat(4 * 1024 * 1024) },
    });
    expect(refused.status).toBe(413);
    expect(refused.json.code).toBe("PAYLOAD_TOO_LARGE");
    expect((await call<{ totalCount: number }>("workflows.listExecutions", { projectId })).json.totalCount).toBe(
      before.json.totalCount,
    );
  });

  it("answers the same execution for a repeated idempotency key", async () => {
    const input = { projectId, workflow: "echo", input: { n: 5 }, idempotencyKey: "order-7" };
    const first = await call<{ executionId: string }>("workflows.run", input);
    const again = await call<{ executionId: string }>("workflows.run", input);
    expect(again.json.executionId).toBe(first.json.executionId);
  });

  it("refuses an idempotency key reused with another input as CONFLICT, starting nothing", async () => {
    const first = await call<{ executionId: string }>("workflows.run", {
      projectId,
      workflow: "echo",
      input: { n: 8 },
      idempotencyKey: "order-8",
    });
    const before = await call<{ totalCount: number }>("workflows.listExecutions", { projectId });
    const reused = await call("workflows.run", {
      projectId,
      workflow: "echo",
      input: { n: 9 },
      idempotencyKey: "order-8",
    });
    expect(reused.status).toBe(409);
    expect(reused.json).toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining("idempotency key was used with another request"),
    });
    expect((await call<{ totalCount: number }>("workflows.listExecutions", { projectId })).json.totalCount).toBe(
      before.json.totalCount,
    );
    const again = await call<{ executionId: string }>("workflows.run", {
      projectId,
      workflow: "echo",
      input: { n: 8 },
      idempotencyKey: "order-8",
    });
    expect(again.json.executionId).toBe(first.json.executionId);
  });

  it("shows an execution's steps, logs and attempts, its trace, and reruns it", async () => {
    const ran = await call<{ executionId: string }>("workflows.run", { projectId, workflow: "echo", input: { n: 3 } });
    const execution = await finished(ran.json.executionId);
    expect(execution).toMatchObject({ status: "succeeded", input: { n: 3 }, output: { scaled: 6 } });
    expect(execution.steps.map((step) => [step.name, step.output])).toEqual([["scale", 6]]);
    expect(execution.logs.map((entry) => entry.message)).toEqual(["starting"]);
    expect(execution.attempts).toMatchObject([{ number: 1, status: "ok" }]);

    const listed = await call<{ results: { id: string }[] }>("workflows.listExecutions", {
      projectId,
      workflow: "echo",
      status: "succeeded",
      pagination: { last: 1 },
    });
    expect(listed.json.results.map((entry) => entry.id)).toEqual([execution.id]);

    const traces = await call<{ data: { traceId: string; executionId: string }[] }>("traces.list", {
      projectId,
      limit: 1,
    });
    expect(traces.json.data).toMatchObject([{ traceId: execution.traceId, executionId: execution.id }]);
    // Filtered by its execution's status: a final one, and unfinished ones (the partial indexes' form).
    const succeededTraces = await call<{ data: { executionId: string }[] }>("traces.list", {
      projectId,
      status: "succeeded",
    });
    expect(succeededTraces.json.data.map((entry) => entry.executionId)).toContain(execution.id);
    const unfinishedTraces = await call<{ data: { executionId: string }[] }>("traces.list", {
      projectId,
      status: ["queued", "running", "sleeping", "waiting"],
    });
    expect(unfinishedTraces.json.data.map((entry) => entry.executionId)).not.toContain(execution.id);
    const trace = await call<{
      spans: {
        kind: string;
        children: { kind: string; children: { kind: string; children: { name: string }[] }[] }[];
      }[];
    }>("traces.get", { projectId, traceId: execution.traceId });
    const [root] = trace.json.spans;
    expect(root?.kind).toBe("trigger");
    expect(root?.children[0]?.kind).toBe("execution");
    expect(root?.children[0]?.children[0]?.kind).toBe("attempt");
    expect(root?.children[0]?.children[0]?.children.map((span) => span.name)).toEqual(["step scale"]);

    const refused = await call<{ code: string }>("workflows.cancelExecution", { executionId: execution.id });
    expect(refused).toMatchObject({ status: 409, json: { code: "CONFLICT" } });
    const rerun = await call<{ executionId: string }>("workflows.rerunExecution", { executionId: execution.id });
    expect(rerun.json.executionId).not.toBe(execution.id);
    expect(await finished(rerun.json.executionId)).toMatchObject({ input: { n: 3 }, output: { scaled: 6 } });
  });
});
