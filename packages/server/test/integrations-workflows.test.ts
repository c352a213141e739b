import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import {
  bundleConfig,
  callRpc,
  capturedLogger,
  createTestIdentity,
  startTestPlatform,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { integrations } from "../src/db/schema/index.ts";
import { undecryptableSecretMessage } from "../src/integrations/secret-sealing.ts";

const secrets = {
  header: "Bearer crm-token-5be1c0ffee",
  apiKey: "sk_live_workflow_9d8c7b6a",
  rotated: "sk_live_rotated_1f2e3d4c",
};

const configSource = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "call-crm",
      integrations: { crm: "http", stripe: "secret" },
      async run(_input, ctx) {
        const answer = await ctx.step("fetch", async () => {
          const response = await ctx.integrations.crm.fetch("/items?page=2", { headers: { "x-extra": "1" } });
          return { status: response.status, body: await response.json() };
        });
        ctx.log.info("using " + ctx.integrations.stripe, { key: ctx.integrations.stripe });
        const inEnvironment = await ctx.step("environment", async () =>
          Object.values(process.env).some((value) => String(value).includes(ctx.integrations.stripe)),
        );
        return { answer, inEnvironment, tail: ctx.integrations.stripe.slice(-4) };
      },
    }),
    workflow({
      name: "reads-missing",
      async run(_input, ctx) {
        return ctx.step("read", async () => (ctx.integrations as Record<string, unknown>).nothing);
      },
    }),
    workflow({
      name: "leaks",
      integrations: { stripe: "secret" },
      async run(_input, ctx) {
        return ctx.step("throw", async () => {
          throw new Error("refused key " + ctx.integrations.stripe);
        });
      },
    }),
  ],
});
`;

const once = { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 };

interface ExecutionJson {
  status: string;
  output: unknown;
  error: { message: string } | null;
  steps: { name: string; error?: { message: string } | null; logs: unknown[] }[];
  logs: { message: string; fields?: unknown }[];
}

const captured = capturedLogger("debug");
let weft: TestPlatform;
let owner: TestIdentity;
let projectId: string;
let server: Server;
let serverUrl: string;
const seen: { url: string; headers: IncomingHttpHeaders }[] = [];

async function call<T>(procedure: string, input: unknown): Promise<{ status: number; json: T; text: string }> {
  const result = await callRpc(weft.url, procedure, input, { token: owner.credential });
  return { status: result.status, json: result.json as T, text: result.text };
}

async function runToEnd(workflow: string): Promise<ExecutionJson & { text: string }> {
  const ran = await call<{ executionId: string }>("workflows.run", { projectId, workflow, input: {} });
  expect(ran.status, ran.text).toBe(200);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { json, text } = await call<ExecutionJson>("workflows.getExecution", { executionId: ran.json.executionId });
    if (["succeeded", "failed", "cancelled"].includes(json.status)) return { ...json, text };
    if (Date.now() > deadline) throw new Error(`execution did not finish: ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  server = createServer((request, response) => {
    seen.push({ url: request.url ?? "", headers: request.headers });
    response.writeHead(200, { "content-type": "application/json" });
    response.end(JSON.stringify({ items: ["a", "b"] }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("no address");
  serverUrl = `http://127.0.0.1:${address.port}/api/`;
  weft = await startTestPlatform({
    env: { WEFT_SANDBOX_EGRESS: "all", WEFT_SECRET_KEY: "3c".repeat(32) },
    configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
    logger: captured.logger,
  });
  owner = await createTestIdentity(weft, "owner@example.com");
  projectId = (await call<{ id: string }>("projects.create", { name: "Calls out" })).json.id;
}, 60_000);

afterAll(async () => {
  await weft.stop();
  await new Promise((resolve) => server.close(resolve));
  const everything = captured.lines.map((line) => JSON.stringify(line)).join("\n");
  for (const value of Object.values(secrets)) expect(everything).not.toContain(value);
});

describe("integrations in workflow code", () => {
  it("refuses a deployment whose workflows declare integrations the project lacks, naming them", async () => {
    const bundle = await bundleConfig(configSource);
    const refused = await call<{ code: string; message: string; data: { issues: { path: unknown[] }[] } }>(
      "deployments.create",
      {
        projectId,
        manifest: { version: 1, workflows: [{ name: "call-crm", integrations: { crm: "http", stripe: "secret" } }] },
        bundle,
      },
    );
    expect(refused.status).toBe(400);
    expect(refused.json.code).toBe("BAD_REQUEST");
    expect(refused.json.message).toContain("crm, stripe");
    expect(refused.json.data.issues.map((issue) => issue.path.join("."))).toEqual([
      "manifest.workflows.0.integrations.crm",
      "manifest.workflows.0.integrations.stripe",
    ]);
  });

  it("gives the workflow its integrations: the http one calls the local server with its headers", async () => {
    for (const input of [
      {
        projectId,
        name: "crm",
        kind: "http",
        config: { baseUrl: serverUrl },
        secrets: { Authorization: secrets.header },
      },
      { projectId, name: "stripe", kind: "secret", secrets: { value: secrets.apiKey } },
    ]) {
      const created = await call("integrations.create", input);
      expect(created.status, created.text).toBe(200);
    }
    const deployed = await call("deployments.create", {
      projectId,
      manifest: {
        version: 1,
        // One attempt each: a failure is final at once, with no backoff to wait out.
        workflows: [
          { name: "call-crm", integrations: { crm: "http", stripe: "secret" }, retries: once },
          { name: "reads-missing", retries: once },
          { name: "leaks", integrations: { stripe: "secret" }, retries: once },
        ],
      },
      bundle: await bundleConfig(configSource),
    });
    expect(deployed.status, deployed.text).toBe(200);

    const execution = await runToEnd("call-crm");
    expect(execution.status, execution.text).toBe("succeeded");
    expect(execution.output).toEqual({
      answer: { status: 200, body: { items: ["a", "b"] } },
      inEnvironment: false,
      tail: secrets.apiKey.slice(-4),
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url).toBe("/api/items?page=2");
    expect(seen[0]?.headers.authorization).toBe(secrets.header);
    expect(seen[0]?.headers["x-extra"]).toBe("1");
    // The workflow logged its secret; what is stored says [redacted].
    expect(execution.logs).toEqual([
      expect.objectContaining({ message: "using [redacted]", fields: { key: "[redacted]" } }),
    ]);
    expect(execution.text).not.toContain(secrets.apiKey);
  });

  it("uses a rotated secret from the next attempt on", async () => {
    const updated = await call("integrations.update", {
      projectId,
      name: "stripe",
      secrets: { value: secrets.rotated },
    });
    expect(updated.status).toBe(200);
    const execution = await runToEnd("call-crm");
    expect(execution.output).toMatchObject({ tail: secrets.rotated.slice(-4) });
    expect(execution.text).not.toContain(secrets.rotated);
  });

  it("fails the step that reads an integration the project lacks, naming it", async () => {
    const execution = await runToEnd("reads-missing");
    expect(execution.status).toBe("failed");
    expect(execution.text).toContain('the project has no integration \\"nothing\\"');
  });

  it("scrubs the secret out of a failed step's error message", async () => {
    const execution = await runToEnd("leaks");
    expect(execution.status).toBe("failed");
    expect(execution.text).toContain("refused key [redacted]");
    expect(execution.text).not.toContain(secrets.rotated);
  });

  it("fails the attempt closed when a secret does not decrypt, and overwrites nothing", async () => {
    const where = and(eq(integrations.projectId, projectId), eq(integrations.name, "stripe"));
    const [row] = await weft.database.db.select().from(integrations).where(where);
    if (row === undefined) throw new Error("no row");
    await weft.database.db.update(integrations).set({ keyId: "0123456789abcdef" }).where(where);
    const execution = await runToEnd("call-crm");
    expect(execution.status).toBe("failed");
    expect(execution.text).toContain(undecryptableSecretMessage);
    expect(await weft.database.db.select().from(integrations).where(where)).toEqual([
      { ...row, keyId: "0123456789abcdef" },
    ]);
    await weft.database.db.update(integrations).set({ keyId: row.keyId }).where(where);
  });
});
