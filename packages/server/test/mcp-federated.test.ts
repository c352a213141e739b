import { randomUUID } from "node:crypto";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  callRpc,
  createTeamWorkspace,
  createTestIdentity,
  postTokenRequest,
  startTestIdentityProvider,
  startTestPlatform,
  type TestIdentityProvider,
  type TestPlatform,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let idp: TestIdentityProvider;
let weft: TestPlatform;
let projectId: string;
let siblingId: string;
let federated: string;

async function createProject(token: string, name: string, workspaceId: string): Promise<string> {
  const created = await callRpc(weft.url, "projects.create", { name, workspaceId }, { token });
  if (created.status !== 200) throw new Error(created.text);
  return (created.json as { id: string }).id;
}

beforeAll(async () => {
  idp = await startTestIdentityProvider();
  // The issuer serves on loopback: the operator's exemption lets the platform fetch its keys.
  weft = await startTestPlatform({ env: { WEFT_SANDBOX_EGRESS_ALLOW: new URL(idp.issuer).host } });
  const owner = await createTestIdentity(weft, "owner@example.com");
  const teamId = await createTeamWorkspace(weft, owner, "CI Inc");
  projectId = await createProject(owner.credential, "app", teamId);
  siblingId = await createProject(owner.credential, "sibling", teamId);
  const policy = await callRpc(
    weft.url,
    "access.createFederationPolicy",
    {
      workspaceId: teamId,
      projectId,
      issuer: idp.issuer,
      audience: "weft",
      subject: "repo:weft-dev/app:*",
      scopes: ["projects:read", "projects:write"],
    },
    { token: owner.credential },
  );
  if (policy.status !== 200) throw new Error(policy.text);
  const now = Math.floor(weft.clock.now().getTime() / 1000);
  const subjectToken = await idp.sign(
    {
      iss: idp.issuer,
      sub: "repo:weft-dev/app:ref:refs/heads/main",
      aud: "weft",
      jti: randomUUID(),
      iat: now,
      nbf: now,
      exp: now + 300,
    },
    { typ: "JWT" },
  );
  const exchanged = await postTokenRequest(weft.url, { subjectToken, audience: projectId });
  if (exchanged.status !== 200) throw new Error(JSON.stringify(exchanged.body));
  federated = exchanged.body.access_token as string;
});

afterAll(async () => {
  await weft?.stop();
  await idp?.close();
});

describe("a project-scoped federated credential on /mcp", () => {
  it("sees the tools of its project only, and nothing of the workspace's other projects", async () => {
    const client = new Client({ name: "ci", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${weft.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${federated}` } },
      }),
    );
    const names = new Set((await client.listTools()).tools.map((tool) => tool.name));
    expect(names.has("workflows_run")).toBe(true);
    expect(names.has("projects_create")).toBe(false);
    expect([...names].filter((name) => name.startsWith("agents_"))).toEqual([]);

    const listed = (await client.callTool({ name: "projects_list", arguments: {} })) as CallToolResult;
    expect(listed.structuredContent).toMatchObject({ totalCount: 1, results: [{ id: projectId }] });
    const sibling = (await client.callTool({
      name: "projects_get",
      arguments: { projectId: siblingId },
    })) as CallToolResult;
    expect(sibling).toMatchObject({
      isError: true,
      content: [{ type: "text", text: "NOT_FOUND: No project with this id." }],
    });
    const agents = (await client.callTool({ name: "agents_list", arguments: {} })) as CallToolResult;
    expect(agents.isError).toBe(true);
    expect((agents.content[0] as { text: string }).text).toMatch(
      /^FORBIDDEN: This credential is scoped to one project/,
    );
    await client.close();
  });
});
