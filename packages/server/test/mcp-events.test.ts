import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { bundleConfig, callRpc, signedInTestPlatform } from "@weft/testing";
import { describe, expect, it } from "vitest";

/** Events through MCP: `events_send` and `events_list` are the procedures, with their refusals. */

const signedIn = signedInTestPlatform("mcp-events@example.com");

const config = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [workflow({ name: "on-created", on: [{ event: "order.created" }], run: async (event: unknown) => event })],
});
`;

async function connect(): Promise<Client> {
  const client = new Client({ name: "weft-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${signedIn.weft.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${signedIn.identity.credential}` } },
  });
  await client.connect(transport);
  return client;
}

describe("events over MCP", () => {
  it("sends an event that starts the subscribed workflow, lists it, and refuses a bad name", async () => {
    const token = signedIn.identity.credential;
    const projectId = (
      (await callRpc(signedIn.weft.url, "projects.create", { name: "MCP events" }, { token })).json as { id: string }
    ).id;
    const deployed = await callRpc(
      signedIn.weft.url,
      "deployments.create",
      {
        projectId,
        manifest: { version: 1, workflows: [{ name: "on-created", on: [{ event: "order.created" }] }] },
        bundle: await bundleConfig(config),
      },
      { token },
    );
    expect(deployed.status).toBe(200);

    const client = await connect();
    try {
      const sent = (await client.callTool({
        name: "events_send",
        arguments: { projectId, name: "order.created", data: { orderId: "o-1" } },
      })) as CallToolResult;
      expect(sent.isError).toBeFalsy();
      const event = sent.structuredContent as { id: string; executions: { workflow: string }[] };
      expect(event.executions.map((started) => started.workflow)).toEqual(["on-created"]);

      const listed = (await client.callTool({ name: "events_list", arguments: { projectId } })) as CallToolResult;
      expect(listed.structuredContent).toMatchObject({ data: [{ id: event.id, name: "order.created" }] });

      const refused = (await client.callTool({
        name: "events_send",
        arguments: { projectId, name: "order created!" },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused.content)).toContain("name");
    } finally {
      await client.close();
    }
  });
});
