import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { callRpc, createTestIdentity, startTestPlatform, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/** A stand-in OpenTelemetry collector: records what is POSTed to /v1/traces. */
let collector: Server;
const received: { path: string; contentType: string; body: string }[] = [];
let weft: TestPlatform;

beforeAll(async () => {
  collector = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString();
    });
    request.on("end", () => {
      received.push({ path: request.url ?? "", contentType: request.headers["content-type"] ?? "", body });
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  const { port } = collector.address() as AddressInfo;
  weft = await startTestPlatform({
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` },
    configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
  });
});
afterAll(async () => {
  await weft.stop();
  collector.close();
});

async function collected(traceId: unknown): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const request = received.find((entry) => entry.body.includes(String(traceId)));
    if (request !== undefined) return request.body;
    if (Date.now() > deadline) throw new Error(`no spans reached the collector: ${JSON.stringify(received)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A new owner and project with one workflow deployed; answers an RPC caller as that owner. */
async function deployWorkflow(email: string, workflow: string, bundle: string) {
  const owner = await createTestIdentity(weft, email);
  const call = async (procedure: string, input: unknown) =>
    (await callRpc(weft.url, procedure, input, { token: owner.credential })).json as Record<string, unknown>;
  const project = await call("projects.create", { name: `Traced ${workflow}` });
  await call("deployments.create", {
    projectId: project.id,
    manifest: { version: 1, workflows: [{ name: workflow }] },
    bundle,
  });
  const run = async () =>
    (await call("workflows.run", { projectId: project.id, workflow, input: {} })) as { executionId: string };
  return { call, run };
}

describe("the OTLP/HTTP exporter", () => {
  it("sends a finished execution's spans to the configured collector", async () => {
    const { call, run } = await deployWorkflow(
      "otel@example.com",
      "hello",
      'export default { workflows: [{ name: "hello", run: async (input, ctx) => ctx.step("greet", () => "hi") }] };',
    );
    const { executionId } = await run();
    const execution = await call("workflows.getExecution", { executionId });
    await collected(execution.traceId);
    const request = received.find((entry) => entry.body.includes(String(execution.traceId)));
    expect(request?.path).toBe("/v1/traces");
    const names = [...(request?.body ?? "").matchAll(/"name":"([^"]+)"/g)].map((match) => match[1]);
    expect(names).toEqual(expect.arrayContaining(["trigger api", "execution hello", "attempt 1", "step greet"]));
  });

  it("sends the spans of an execution the API cancels while it sleeps, which no worker finishes", async () => {
    const { call, run } = await deployWorkflow(
      "otel-cancel@example.com",
      "nap",
      'export default { workflows: [{ name: "nap", run: async (input, ctx) => ctx.sleep("long", "1h") }] };',
    );
    const { executionId } = await run();
    const deadline = Date.now() + 20_000;
    while ((await call("workflows.getExecution", { executionId })).status !== "sleeping") {
      if (Date.now() > deadline) throw new Error("the execution never went to sleep");
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const execution = await call("workflows.getExecution", { executionId });
    expect(received.some((entry) => entry.body.includes(String(execution.traceId)))).toBe(false);
    expect(await call("workflows.cancelExecution", { executionId })).toMatchObject({ status: "cancelled" });
    const body = await collected(execution.traceId);
    expect(body).toContain("execution nap");
    expect(body).toContain("the execution was cancelled");
  });
});
