import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { signedInTestPlatform } from "@weft/testing";
import { describe, expect, it } from "vitest";
import { projects } from "../src/db/schema/index.ts";

const signedIn = signedInTestPlatform("ada@example.com");

const mcpHeaders = { "content-type": "application/json", accept: "application/json, text/event-stream" };

async function post(body: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${signedIn.weft.url}/mcp`, {
    method: "POST",
    headers: { ...mcpHeaders, authorization: `Bearer ${signedIn.identity.credential}`, ...headers },
    body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text };
}

function jsonRpcError(text: string): { code: number; message: string } {
  return (JSON.parse(text) as { error: { code: number; message: string } }).error;
}

async function connect(): Promise<Client> {
  const client = new Client({ name: "weft-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${signedIn.weft.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${signedIn.identity.credential}` } },
    }),
  );
  return client;
}

function textOf(result: CallToolResult): string {
  return result.content.map((item) => (item.type === "text" ? item.text : "")).join("\n");
}

describe("bad input to the MCP endpoint", () => {
  it("answers no credential with 401 and the challenge that leads to the protected resource metadata", async () => {
    const response = await fetch(`${signedIn.weft.url}/mcp`, { method: "POST", headers: mcpHeaders, body: "{}" });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${signedIn.weft.url}/.well-known/oauth-protected-resource"`,
    );
    expect(await response.json()).toEqual({
      error: "invalid_request",
      error_description: "A bearer credential is required: send Authorization: Bearer <credential>.",
    });
  });

  it("answers a body that is not JSON with JSON-RPC's parse error", async () => {
    const answer = await post("{not json");
    expect(answer.status).toBe(400);
    expect(jsonRpcError(answer.text).code).toBe(-32700);
  });

  // The SDK's transport answers this -32700 rather than JSON-RPC's -32600 (docs/decisions/0071-mcp-endpoint.md).
  it("answers JSON that is no JSON-RPC message with a JSON-RPC error saying so", async () => {
    const answer = await post(JSON.stringify({ hello: "world" }));
    expect(answer.status).toBe(400);
    expect(jsonRpcError(answer.text)).toEqual({ code: -32700, message: "Parse error: Invalid JSON-RPC message" });
  });

  it("answers a batch over the SDK's limit with JSON-RPC's invalid request", async () => {
    const batch = Array.from({ length: 101 }, (_, id) => ({ jsonrpc: "2.0", id, method: "ping" }));
    const answer = await post(JSON.stringify(batch));
    expect(answer.status).toBe(400);
    expect(jsonRpcError(answer.text).code).toBe(-32600);
  });

  it("answers an unknown method with JSON-RPC's method not found", async () => {
    const answer = await post(JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/explode" }));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text)).toMatchObject({ id: 7, error: { code: -32601 } });
  });

  it("refuses a body over 1 MiB with 413 and changes nothing", async () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "projects_create", arguments: {} } };
    const padded = JSON.stringify({
      ...call,
      params: { ...call.params, arguments: { name: "x".repeat(1024 * 1024) } },
    });
    const answer = await post(padded);
    expect(answer.status).toBe(413);
    expect(await signedIn.weft.database.db.select().from(projects)).toEqual([]);
  });

  it("answers GET and DELETE with 405: the endpoint keeps no sessions and streams nothing", async () => {
    for (const method of ["GET", "DELETE"]) {
      const response = await fetch(`${signedIn.weft.url}/mcp`, {
        method,
        headers: { accept: "text/event-stream", authorization: `Bearer ${signedIn.identity.credential}` },
      });
      expect(response.status, method).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
    }
  });

  it("answers invalid tool arguments with a tool error naming each field, and changes nothing", async () => {
    const client = await connect();
    const result = (await client.callTool({
      name: "projects_create",
      arguments: { name: "", colour: "red" },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toMatch(/^BAD_REQUEST: Input validation failed/);
    expect(text).toMatch(/^name: /m);
    expect(text).toMatch(/colour/);
    const wrongId = (await client.callTool({
      name: "workflows_getExecution",
      arguments: { executionId: "nope" },
    })) as CallToolResult;
    expect(textOf(wrongId)).toMatch(/^executionId: Expected an execution id/m);
    expect(await signedIn.weft.database.db.select().from(projects)).toEqual([]);
    await client.close();
  });

  it("answers an unknown tool and an unknown resource with JSON-RPC errors", async () => {
    const client = await connect();
    await expect(client.callTool({ name: "access_invite", arguments: {} })).rejects.toMatchObject({ code: -32602 });
    await expect(client.readResource({ uri: "weft://members/acc_x" })).rejects.toMatchObject({ code: -32002 });
    await expect(client.readResource({ uri: "weft://executions/nope" })).rejects.toMatchObject({ code: -32602 });
    await client.close();
  });
});
