import { callRpc, createTestIdentity, revokeTestCredential, startTestPlatform, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projects } from "../src/db/schema/index.ts";
import { credentialLifetimeMs } from "../src/identity/credentials.ts";
import { principalCacheTtlMs } from "../src/rpc/principal-cache.ts";

let weft: TestPlatform;

beforeAll(async () => {
  weft = await startTestPlatform({ env: { WEFT_AUTH_URL: "http://auth.localhost:4000" } });
});

afterAll(async () => {
  await weft.stop();
});

function metadataUrl() {
  return `${weft.url}/.well-known/oauth-protected-resource`;
}

function invalidTokenChallenge() {
  return `Bearer resource_metadata="${metadataUrl()}", error="invalid_token", error_description="The credential is unknown, expired or revoked."`;
}

describe("protected resource metadata", () => {
  it("describes the API, its authorization server and scopes (RFC 9728)", async () => {
    const response = await fetch(metadataUrl());
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      resource: weft.url,
      authorization_servers: ["http://auth.localhost:4000"],
      scopes_supported: ["projects:read", "projects:write", "deployments:read", "deployments:write"],
      bearer_methods_supported: ["header"],
      resource_name: "Weft API",
      resource_documentation: `${weft.url}/openapi.json`,
      mcp_endpoint: `${weft.url}/mcp`,
    });
  });
});

describe("bearer authentication", () => {
  it("answers a request without a credential with 401, the metadata challenge and an UNAUTHORIZED body", async () => {
    for (const headers of [{}, { authorization: "Basic YWRhOnB3" }] as Record<string, string>[]) {
      const result = await callRpc(weft.url, "projects.list", {}, { headers });
      expect(result.status).toBe(401);
      expect(result.headers.get("www-authenticate")).toBe(`Bearer resource_metadata="${metadataUrl()}"`);
      expect(result.json).toMatchObject({ code: "UNAUTHORIZED", status: 401, message: expect.any(String) });
    }
  });

  it("answers an unknown credential with 401 invalid_token", async () => {
    for (const token of ["weft_unknown", "not-even-ours"]) {
      const result = await callRpc(weft.url, "projects.create", { name: "x" }, { token });
      expect(result.status).toBe(401);
      expect(result.headers.get("www-authenticate")).toBe(invalidTokenChallenge());
      expect(result.json).toMatchObject({ code: "UNAUTHORIZED" });
    }
    expect(await weft.database.db.select().from(projects)).toEqual([]);
  });

  it("refuses a credential once it is 30 days old", async () => {
    const grace = await createTestIdentity(weft, "grace@example.com");
    weft.clock.advance(credentialLifetimeMs - 1);
    expect((await callRpc(weft.url, "projects.list", {}, { token: grace.credential })).status).toBe(200);
    weft.clock.advance(1);
    const result = await callRpc(weft.url, "projects.list", {}, { token: grace.credential });
    expect(result.status).toBe(401);
    expect(result.headers.get("www-authenticate")).toBe(invalidTokenChallenge());
  });

  it("refuses a credential revoked in this process at once, even right after a cached lookup", async () => {
    const linus = await createTestIdentity(weft, "linus@example.com");
    expect((await callRpc(weft.url, "projects.list", {}, { token: linus.credential })).status).toBe(200);
    await revokeTestCredential(weft, linus.credentialId, { announce: true });
    const result = await callRpc(weft.url, "projects.create", { name: "after" }, { token: linus.credential });
    expect(result.status).toBe(401);
    expect(result.headers.get("www-authenticate")).toBe(invalidTokenChallenge());
    expect(await weft.database.db.select().from(projects)).toEqual([]);
  });

  it("refuses a credential revoked by another process within the cache bound", async () => {
    const barbara = await createTestIdentity(weft, "barbara@example.com");
    expect((await callRpc(weft.url, "projects.list", {}, { token: barbara.credential })).status).toBe(200);
    await revokeTestCredential(weft, barbara.credentialId, { announce: false });
    weft.clock.advance(principalCacheTtlMs - 1);
    expect((await callRpc(weft.url, "projects.list", {}, { token: barbara.credential })).status).toBe(200);
    weft.clock.advance(1);
    const result = await callRpc(weft.url, "projects.list", {}, { token: barbara.credential });
    expect(result.status).toBe(401);
    expect(result.headers.get("www-authenticate")).toBe(invalidTokenChallenge());
    expect(principalCacheTtlMs).toBeLessThanOrEqual(5000);
  });
});

describe("scopes", () => {
  it("refuses a procedure whose scope the credential lacks, naming the scope, and changes nothing", async () => {
    const reader = await createTestIdentity(weft, "reader@example.com", { scopes: ["projects:read"] });
    const result = await callRpc(weft.url, "projects.create", { name: "nope" }, { token: reader.credential });
    expect(result.status).toBe(403);
    expect(result.json).toMatchObject({
      code: "FORBIDDEN",
      message: expect.stringContaining("projects:write"),
      data: { missingScope: "projects:write" },
    });
    expect(await weft.database.db.select().from(projects)).toEqual([]);

    const writer = await createTestIdentity(weft, "writer@example.com", { scopes: ["projects:write"] });
    const listing = await callRpc(weft.url, "projects.list", {}, { token: writer.credential });
    expect(listing).toMatchObject({
      status: 403,
      json: { code: "FORBIDDEN", data: { missingScope: "projects:read" } },
    });
  });
});
