import { discoverOAuthProtectedResourceMetadata } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult, TextResourceContents } from "@modelcontextprotocol/sdk/types.js";
import {
  bundleConfig,
  callRpc,
  createTestIdentity,
  registerEmailAgent,
  revokeTestCredential,
  startTestPlatform,
  type TestAgent,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { auditEvents } from "../src/db/schema/index.ts";
import { mcpTools } from "../src/mcp/mcp-tools.ts";

let weft: TestPlatform;
let owner: TestIdentity;
let agent: TestAgent;
let stranger: TestIdentity;

const config = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "echo",
      input: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      async run(input: { n: number }, ctx) {
        const doubled = await ctx.step("double", async () => input.n * 2);
        return { doubled };
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
};

/** An MCP client of the SDK, connected to the platform's `/mcp` with a static bearer credential. */
async function connect(credential: string): Promise<Client> {
  const client = new Client({ name: "weft-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${weft.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${credential}` } },
  });
  await client.connect(transport);
  return client;
}

/** One JSON-RPC message POSTed to `/mcp` as an MCP client sends it, without the SDK in between. */
function postMcp(credential: string, message: Record<string, unknown>): Promise<Response> {
  return fetch(`${weft.url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${credential}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify(message),
  });
}

async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function textOf(result: CallToolResult): string {
  return result.content.map((item) => (item.type === "text" ? item.text : "")).join("\n");
}

async function finished(client: Client, executionId: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const read = await callTool(client, "workflows_getExecution", { executionId });
    const execution = read.structuredContent as { status: string };
    if (["succeeded", "failed", "cancelled"].includes(execution.status)) return execution;
    if (Date.now() > deadline) throw new Error(`execution did not finish: ${JSON.stringify(execution)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeAll(async () => {
  weft = await startTestPlatform({
    configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
  });
  owner = await createTestIdentity(weft, "owner@example.com");
  agent = await registerEmailAgent(weft, "owner@example.com", { userAgent: "mcp-client/1.0" });
  stranger = await createTestIdentity(weft, "stranger@example.com");
});

afterAll(async () => {
  await weft.stop();
});

describe("the MCP endpoint", () => {
  it("lists every tool of the catalogue to a credential with every scope, with schemas from the contract", async () => {
    const client = await connect(owner.credential);
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([...mcpTools().keys()].sort());
    const run = tools.find((tool) => tool.name === "workflows_run");
    expect(run?.description).toContain("Start an execution");
    expect(run?.inputSchema).toMatchObject({
      type: "object",
      required: expect.arrayContaining(["projectId", "workflow"]),
    });
    expect(run?.outputSchema).toMatchObject({ type: "object", properties: { executionId: { type: "string" } } });
    expect(run?.annotations?.readOnlyHint).toBe(false);
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((template) => template.uriTemplate)).toEqual([
      "weft://executions/{id}",
      "weft://traces/{projectId}/{traceId}",
    ]);
    await client.close();
  });

  it("creates a project, runs a deployed workflow and reads its execution and trace, auditing as the agent via mcp", async () => {
    const client = await connect(agent.credential);
    const created = await callTool(client, "projects_create", { name: "From MCP" });
    expect(created.isError).toBeFalsy();
    const project = created.structuredContent as { id: string; name: string };
    expect(project).toMatchObject({ id: expect.stringMatching(/^prj_/), name: "From MCP" });
    expect(textOf(created)).toContain(project.id);

    const [event] = await weft.database.db.select().from(auditEvents).where(eq(auditEvents.targetId, project.id));
    expect(event).toMatchObject({ action: "project.created", actorAgentId: agent.agentId, actorVia: "mcp" });
    expect(event?.actorAgent).toMatchObject({ userAgent: "mcp-client/1.0" });

    const deployed = await callRpc(
      weft.url,
      "deployments.create",
      { projectId: project.id, manifest, bundle: await bundleConfig(config) },
      { token: owner.credential },
    );
    expect(deployed.status).toBe(200);

    const ran = await callTool(client, "workflows_run", { projectId: project.id, workflow: "echo", input: { n: 21 } });
    expect(ran.isError).toBeFalsy();
    const { executionId } = ran.structuredContent as { executionId: string };
    const execution = await finished(client, executionId);
    expect(execution).toMatchObject({ status: "succeeded", output: { doubled: 42 } });

    const resource = await client.readResource({ uri: `weft://executions/${executionId}` });
    const contents = resource.contents[0] as TextResourceContents;
    expect(contents).toMatchObject({ uri: `weft://executions/${executionId}`, mimeType: "application/json" });
    const traceId = (JSON.parse(contents.text) as { traceId: string }).traceId;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);

    const trace = await client.readResource({ uri: `weft://traces/${project.id}/${traceId}` });
    const spans = (JSON.parse((trace.contents[0] as TextResourceContents).text) as { spans: { name: string }[] }).spans;
    expect(spans.length).toBeGreaterThan(0);
    const traced = await callTool(client, "traces_get", { projectId: project.id, traceId });
    expect(traced.structuredContent).toMatchObject({ traceId });

    const listed = await callTool(client, "workflows_listExecutions", { projectId: project.id });
    expect(listed.structuredContent).toMatchObject({ totalCount: 1 });
    expect(textOf(listed)).toContain("1 result(s) of 1");

    const runEvents = await weft.database.db.select().from(auditEvents).where(eq(auditEvents.targetId, executionId));
    expect(runEvents.map((row) => row.actorVia)).not.toContain("rpc");

    await client.close();
  });

  it("shows a read-only credential no tool that changes something, and refuses it when it calls one", async () => {
    const readOnly = await createTestIdentity(weft, "owner@example.com", {
      scopes: ["projects:read", "deployments:read"],
    });
    const client = await connect(readOnly.credential);
    const { tools } = await client.listTools();
    const shown = new Set(tools.map((tool) => tool.name));
    for (const tool of mcpTools().values()) {
      expect(shown.has(tool.definition.name), tool.procedure).toBe(!tool.meta.mutates);
    }
    // Without its scope the call is refused before it runs, as a 403 the SDK's step-up reads.
    await expect(callTool(client, "projects_create", { name: "Nope" })).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining("insufficient_scope"),
    });
    await client.close();
  });

  it("answers a tool call without the tool's scope 403 insufficient_scope before it runs, and one with it 200", async () => {
    const readOnly = await createTestIdentity(weft, "owner@example.com", {
      scopes: ["projects:read", "deployments:read"],
    });
    const refused = await postMcp(readOnly.credential, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "projects_create", arguments: { name: "Never made" } },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toBe(
      `Bearer error="insufficient_scope", scope="projects:read projects:write deployments:read", resource_metadata="${weft.url}/.well-known/oauth-protected-resource"`,
    );
    expect(refused.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await refused.json()).toEqual({
      error: "insufficient_scope",
      error_description:
        'This credential lacks the scope of the tool it calls: projects:write (projects_create). Authorize again for "projects:read projects:write deployments:read".',
    });
    const listed = await callRpc(weft.url, "projects.list", {}, { token: owner.credential });
    expect((listed.json as { results: { name: string }[] }).results.map((project) => project.name)).not.toContain(
      "Never made",
    );

    const allowed = await postMcp(readOnly.credential, {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "projects_list", arguments: {} },
    });
    expect(allowed.status).toBe(200);
    const answer = (await allowed.json()) as { id: number; result: CallToolResult };
    expect(answer).toMatchObject({ id: 2, result: { structuredContent: { results: expect.any(Array) } } });
    expect(answer.result.isError).toBeUndefined();
  });

  it("answers a revoked credential 401 with the challenge", async () => {
    const doomed = await createTestIdentity(weft, "owner@example.com");
    await revokeTestCredential(weft, doomed.credentialId, { announce: true });
    await expect(connect(doomed.credential)).rejects.toMatchObject({ code: 401 });
    const response = await postMcp(doomed.credential, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${weft.url}/.well-known/oauth-protected-resource", error="invalid_token", error_description="The credential is unknown, expired or revoked."`,
    );
    expect(await response.json()).toEqual({
      error: "invalid_token",
      error_description: "The bearer credential is unknown, expired or revoked; register again for a new one.",
    });
  });

  it("answers another tenant's ids NOT_FOUND, as tool errors and resource errors", async () => {
    const owned = await callRpc(weft.url, "projects.create", { name: "Private" }, { token: owner.credential });
    const projectId = (owned.json as { id: string }).id;
    const client = await connect(stranger.credential);
    const read = await callTool(client, "projects_get", { projectId });
    expect(read.isError).toBe(true);
    expect(textOf(read)).toBe("NOT_FOUND: No project with this id.");
    const run = await callTool(client, "workflows_run", { projectId, workflow: "echo", input: { n: 1 } });
    expect(textOf(run)).toMatch(/^NOT_FOUND: /);
    await expect(client.readResource({ uri: `weft://traces/${projectId}/${"0".repeat(32)}` })).rejects.toThrow(
      /NOT_FOUND/,
    );
    await client.close();
  });

  it("is found by the SDK's protected resource discovery", async () => {
    const metadata = await discoverOAuthProtectedResourceMetadata(`${weft.url}/mcp`);
    expect(metadata.resource).toBe(weft.url);
    expect(metadata.authorization_servers).toEqual([weft.url]);
    expect(metadata).toMatchObject({ mcp_endpoint: `${weft.url}/mcp` });
  });
});
