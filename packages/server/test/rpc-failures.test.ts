import { callRpc, capturedLogger, internalErrorBody, signedInTestPlatform } from "@weft/testing";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { defaultBodyLimitBytes as rpcBodyLimitBytes } from "../src/http/body-limit.ts";

const { logger, lines: logLines } = capturedLogger("error");
const signedIn = signedInTestPlatform("ada@example.com", { logger });

describe("RPC failures", () => {
  it("answers an unknown procedure with 404", async () => {
    const result = await signedIn.call("projects.explode", {});
    expect(result.status).toBe(404);
    const response = await fetch(`${signedIn.weft.url}/api/projects/explode`, { method: "POST" });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: "not_found", message: "No procedure at /api/projects/explode." });
  });

  it("answers /rpc and /api themselves, which name no procedure, with the platform's 404", async () => {
    for (const path of ["/rpc", "/api"]) {
      const response = await fetch(`${signedIn.weft.url}${path}`, { method: "POST" });
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ error: "not_found", message: `No route for POST ${path}.` });
    }
  });

  it("sends the security headers and the request id on RPC answers, refusals included", async () => {
    for (const authorization of [`Bearer ${signedIn.identity.credential}`, undefined]) {
      const response = await fetch(`${signedIn.weft.url}/rpc/projects/list`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-request-id": "trace-rpc-1",
          ...(authorization === undefined ? {} : { authorization }),
        },
        body: JSON.stringify({ json: {} }),
      });
      expect(response.status).toBe(authorization === undefined ? 401 : 200);
      expect(response.headers.get("x-request-id")).toBe("trace-rpc-1");
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    }
  });

  it("refuses a body over the limit with 413", async () => {
    const result = await callRpc(
      signedIn.weft.url,
      "projects.create",
      { name: "x".repeat(rpcBodyLimitBytes) },
      {
        token: signedIn.identity.credential,
      },
    );
    expect(result.status).toBe(413);
    expect(result.json).toMatchObject({ code: "PAYLOAD_TOO_LARGE" });
  });

  it("serves the same procedures as plain JSON under /api, described by /openapi.json", async () => {
    const document = (await (await fetch(`${signedIn.weft.url}/openapi.json`)).json()) as {
      openapi: string;
      servers: { url: string }[];
      paths: Record<string, unknown>;
    };
    expect(document.openapi).toMatch(/^3\.1\./);
    expect(document.servers).toEqual([{ url: `${signedIn.weft.url}/api` }]);
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(["/projects/list", "/projects/get", "/projects/create"]),
    );
    const response = await fetch(`${signedIn.weft.url}/api/projects/create`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${signedIn.identity.credential}` },
      body: JSON.stringify({ name: "Plain" }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ name: "Plain", workspaceId: signedIn.identity.personalWorkspaceId });
    const anonymous = await fetch(`${signedIn.weft.url}/api/projects/list`, { method: "POST" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toContain("resource_metadata=");
  });

  it("hides what went wrong inside an unexpected failure and quotes the request id", async () => {
    await signedIn.weft.database.db.execute(sql`alter table projects rename to projects_gone`);
    try {
      const result = await callRpc(
        signedIn.weft.url,
        "projects.list",
        {},
        {
          token: signedIn.identity.credential,
          headers: { "x-request-id": "req-broken-1" },
        },
      );
      expect(result.status).toBe(500);
      expect(result.json).toEqual(internalErrorBody("req-broken-1"));
      const logged = logLines.find((line) => line.requestId === "req-broken-1");
      expect(logged).toMatchObject({ level: 50, msg: "RPC procedure failed" });
      expect(JSON.stringify(logged?.err)).toContain("projects");
      expect(JSON.stringify(logLines)).not.toContain(signedIn.identity.credential);
    } finally {
      await signedIn.weft.database.db.execute(sql`alter table projects_gone rename to projects`);
    }
  });
});
