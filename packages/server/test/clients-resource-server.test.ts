import { createORPCClient, ORPCError } from "@orpc/client";
import { RPCLink } from "@orpc/client/fetch";
import type { ContractRouterClient } from "@orpc/contract";
import type { contract } from "@weft/contract";
import { callRpc, createTestIdentity, startTestPlatform, type TestIdentity, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultBodyLimitBytes } from "../src/http/body-limit.ts";
import { deploymentUploadBodyLimitBytes } from "../src/rpc/procedure-body-limits.ts";
import { protectedResourceMetadataUrl } from "../src/rpc/protected-resource-metadata.ts";

let weft: TestPlatform;
let owner: TestIdentity;
let reader: TestIdentity;

beforeAll(async () => {
  weft = await startTestPlatform({ env: { WEFT_LOGO_URL: "https://cdn.example.com/weft.png" } });
  owner = await createTestIdentity(weft, "owner@example.com");
  reader = await createTestIdentity(weft, "reader@example.com", { scopes: ["projects:read"] });
});

afterAll(async () => {
  await weft.stop();
});

/** `POST {url}/api/<namespace>/<verb>` with the input as the plain JSON body. */
async function callApi(url: string, procedure: string, body: string, token: string) {
  const response = await fetch(`${url}/api/${procedure.replaceAll(".", "/")}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body,
  });
  return { status: response.status, headers: response.headers, json: (await response.json()) as unknown };
}

describe("a missing scope", () => {
  const challenge = () =>
    `Bearer error="insufficient_scope", scope="projects:write", resource_metadata="${weft.url}/.well-known/oauth-protected-resource"`;

  it("is refused on /rpc with FORBIDDEN and an insufficient_scope challenge naming the scope", async () => {
    const result = await callRpc(weft.url, "projects.create", { name: "nope" }, { token: reader.credential });
    expect(result.status).toBe(403);
    expect(result.headers.get("www-authenticate")).toBe(challenge());
    expect(result.json).toEqual({
      defined: true,
      code: "FORBIDDEN",
      status: 403,
      message: "This credential lacks the projects:write scope.",
      data: { missingScope: "projects:write" },
    });
  });

  it("is refused on /api the same way", async () => {
    const result = await callApi(weft.url, "projects.create", JSON.stringify({ name: "nope" }), reader.credential);
    expect(result.status).toBe(403);
    expect(result.headers.get("www-authenticate")).toBe(challenge());
    expect(result.json).toMatchObject({ code: "FORBIDDEN", data: { missingScope: "projects:write" } });
  });

  it("carries no challenge on other refusals", async () => {
    const result = await callRpc(
      weft.url,
      "projects.get",
      { projectId: "prj_01jzzzzzzzzzzzzzzzzzzzzzzz" },
      { token: reader.credential },
    );
    expect(result.status).toBe(404);
    expect(result.headers.get("www-authenticate")).toBeNull();
  });
});

describe("request body limits", () => {
  /** An RPC body of exactly `bytes` bytes for `projects.create`, whose name is padding. */
  function projectBodyOf(bytes: number): string {
    const empty = JSON.stringify({ json: { name: "" } });
    return JSON.stringify({ json: { name: "x".repeat(bytes - empty.length) } });
  }

  async function postRaw(path: string, body: string) {
    const response = await fetch(`${weft.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${owner.credential}` },
      body,
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  it("refuses a body over 1 MiB with 413 on /rpc and /api, and reads one of exactly 1 MiB", async () => {
    expect(defaultBodyLimitBytes).toBe(1024 * 1024);
    const atLimit = await postRaw("/rpc/projects/create", projectBodyOf(defaultBodyLimitBytes));
    // Read and validated (the name is too long), not refused for its size.
    expect(atLimit.status).toBe(400);
    const over = await postRaw("/rpc/projects/create", projectBodyOf(defaultBodyLimitBytes + 1));
    expect(over).toMatchObject({ status: 413, json: { json: { code: "PAYLOAD_TOO_LARGE", status: 413 } } });

    const apiBody = (bytes: number) => JSON.stringify({ name: "x".repeat(bytes - '{"name":""}'.length) });
    expect((await postRaw("/api/projects/create", apiBody(defaultBodyLimitBytes))).status).toBe(400);
    // Exactly the shape the OpenAPI document gives its 413 responses.
    expect(await postRaw("/api/projects/create", apiBody(defaultBodyLimitBytes + 1))).toEqual({
      status: 413,
      json: { defined: false, code: "PAYLOAD_TOO_LARGE", status: 413, message: expect.any(String) },
    });
  });

  it("lets deployments.create carry a bundle over 1 MiB, up to its own limit, on /rpc and /api", async () => {
    expect(deploymentUploadBodyLimitBytes).toBe(12 * 1024 * 1024);
    const projectId = (
      (await callRpc(weft.url, "projects.create", { name: "Big" }, { token: owner.credential })).json as { id: string }
    ).id;
    const manifest = { version: 1, workflows: [] };
    const bundle = (padding: number) => `export default { workflows: [] };\n//${"x".repeat(padding)}\n`;

    const big = bundle(2 * 1024 * 1024);
    const viaRpc = await postRaw(
      "/rpc/deployments/create",
      JSON.stringify({ json: { projectId, manifest, bundle: big } }),
    );
    expect(viaRpc).toMatchObject({ status: 200, json: { json: { number: 1, bundleBytes: big.length } } });
    const viaApi = await postRaw("/api/deployments/create", JSON.stringify({ projectId, manifest, bundle: big }));
    expect(viaApi).toMatchObject({ status: 200, json: { number: 2 } });

    const tooBig = bundle(deploymentUploadBodyLimitBytes);
    expect(
      await postRaw("/rpc/deployments/create", JSON.stringify({ json: { projectId, manifest, bundle: tooBig } })),
    ).toMatchObject({ status: 413, json: { json: { code: "PAYLOAD_TOO_LARGE" } } });
    expect(
      await postRaw("/api/deployments/create", JSON.stringify({ projectId, manifest, bundle: tooBig })),
    ).toMatchObject({ status: 413, json: { code: "PAYLOAD_TOO_LARGE" } });
    const listed = await callRpc(weft.url, "deployments.list", { projectId }, { token: owner.credential });
    expect((listed.json as { results: unknown[] }).results).toHaveLength(2);
  });
});

describe("protected resource metadata", () => {
  it("names the logo of WEFT_LOGO_URL, and the authorization server its claim endpoint", async () => {
    const metadata = (await (await fetch(`${weft.url}/.well-known/oauth-protected-resource`)).json()) as Record<
      string,
      unknown
    >;
    expect(metadata.resource_logo_uri).toBe("https://cdn.example.com/weft.png");
    const asMetadata = (await (await fetch(`${weft.url}/.well-known/oauth-authorization-server`)).json()) as {
      agent_auth: Record<string, unknown>;
    };
    expect(asMetadata.agent_auth.claim_uri).toBe(`${weft.url}/agent/auth/claim/complete`);
  });
});

describe("a base URL with a path", () => {
  let proxied: TestPlatform;
  let caller: TestIdentity;
  let origin: string;

  beforeAll(async () => {
    proxied = await startTestPlatform({ configure: (config) => ({ ...config, baseUrl: `${config.baseUrl}/weft` }) });
    caller = await createTestIdentity(proxied, "proxied@example.com");
    origin = new URL(proxied.url).origin;
  });

  afterAll(async () => {
    await proxied.stop();
  });

  it("puts the well-known path before the base path (RFC 9728 §3.1)", () => {
    expect(protectedResourceMetadataUrl("https://host.example.com/weft")).toBe(
      "https://host.example.com/.well-known/oauth-protected-resource/weft",
    );
    expect(protectedResourceMetadataUrl("https://host.example.com")).toBe(
      "https://host.example.com/.well-known/oauth-protected-resource",
    );
  });

  it("serves the metadata at the RFC 9728 location and at the root, and the 401 challenge names the former", async () => {
    const expected = `${origin}/.well-known/oauth-protected-resource/weft`;
    const unauthenticated = await callRpc(proxied.url, "projects.list", {});
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${expected}"`);
    for (const location of [expected, `${origin}/.well-known/oauth-protected-resource`]) {
      const response = await fetch(location);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        resource: `${origin}/weft`,
        resource_documentation: `${origin}/weft/openapi.json`,
      });
    }
  });

  it("answers the API under the base path and, for a proxy that strips it, at the root", async () => {
    for (const base of [`${origin}/weft`, origin]) {
      const rpc = await callRpc(base, "projects.list", {}, { token: caller.credential });
      expect(rpc.status).toBe(200);
      const api = await callApi(base, "projects.list", "{}", caller.credential);
      expect(api.status).toBe(200);
      const document = (await (await fetch(`${base}/openapi.json`)).json()) as { servers: { url: string }[] };
      expect(document.servers).toEqual([{ url: `${origin}/weft/api` }]);
    }
  });

  it("answers MCP under the base path and at the root, with the challenge of the base path", async () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } },
    };
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    for (const base of [`${origin}/weft`, origin]) {
      const anonymous = await fetch(`${base}/mcp`, { method: "POST", headers, body: JSON.stringify(initialize) });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get("www-authenticate")).toBe(
        `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/weft"`,
      );
      const answered = await fetch(`${base}/mcp`, {
        method: "POST",
        headers: { ...headers, authorization: `Bearer ${caller.credential}` },
        body: JSON.stringify(initialize),
      });
      expect(answered.status).toBe(200);
      expect(await answered.json()).toMatchObject({ id: 1, result: { serverInfo: { name: "weft" } } });
    }
  });
});

describe("a plain oRPC 1.x client", () => {
  it("calls procedures and decodes Weft's errors as typed ones", async () => {
    const clientOf = (token: string): ContractRouterClient<typeof contract> =>
      createORPCClient(new RPCLink({ url: `${weft.url}/rpc`, headers: { authorization: `Bearer ${token}` } }));
    const created = await clientOf(owner.credential).projects.create({ name: "Via oRPC" });
    expect(created).toMatchObject({ name: "Via oRPC", id: expect.stringMatching(/^prj_/) });
    const refused = await clientOf(reader.credential)
      .projects.create({ name: "nope" })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ORPCError);
    expect(refused).toMatchObject({ defined: true, code: "FORBIDDEN", data: { missingScope: "projects:write" } });
  });
});

describe("discovery documents", () => {
  it("advertise only endpoints that answer, and no OAuth endpoint that does not exist", async () => {
    const authorizationServer = (await (
      await fetch(`${weft.url}/.well-known/oauth-authorization-server`)
    ).json()) as Record<string, unknown> & { agent_auth: Record<string, unknown> };
    expect(authorizationServer).not.toHaveProperty("jwks_uri");
    // The authorize page without a request is an error page, not an unknown route.
    const authorize = await fetch(String(authorizationServer.authorization_endpoint), { redirect: "manual" });
    expect(authorize.status).toBe(400);
    expect(authorize.headers.get("content-type")).toMatch(/^text\/html/);
    const resource = (await (await fetch(`${weft.url}/.well-known/oauth-protected-resource`)).json()) as Record<
      string,
      unknown
    >;
    const documents = [
      authorizationServer.service_documentation,
      authorizationServer.agent_auth.skill,
      resource.resource_documentation,
    ];
    for (const url of documents) expect((await fetch(String(url))).status, String(url)).toBe(200);
    const endpoints = [
      authorizationServer.revocation_endpoint,
      authorizationServer.agent_auth.register_uri,
      authorizationServer.agent_auth.claim_uri,
      authorizationServer.agent_auth.revocation_uri,
      authorizationServer.registration_endpoint,
    ];
    // The token endpoint takes a form body; an empty one is refused as a bad request, not an unknown route.
    const token = await fetch(String(authorizationServer.token_endpoint), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "",
    });
    expect(token.status).toBe(400);
    for (const url of endpoints) {
      // An empty JSON object is refused as a bad request by a real endpoint, not as an unknown route.
      const response = await fetch(String(url), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      expect(response.status, String(url)).toBe(400);
    }
  });
});
