import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createTestIdentity,
  emailRegistration,
  hasChromium,
  launchChromium,
  startTestPlatform,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crossOriginRule } from "../src/http/cors.ts";

const origin = "https://agent.example.net";
let weft: TestPlatform;
let caller: TestIdentity;

beforeAll(async () => {
  weft = await startTestPlatform({ env: { WEFT_RATE_LIMIT_REGISTER: "1" } });
  caller = await createTestIdentity(weft, "cors@example.com");
});

afterAll(async () => {
  await weft.stop();
});

function preflight(path: string, requestHeaders = "authorization, content-type", method = "POST") {
  return fetch(`${weft.url}${path}`, {
    method: "OPTIONS",
    headers: {
      origin,
      "access-control-request-method": method,
      "access-control-request-headers": requestHeaders,
    },
  });
}

const openPaths = [
  "/agent/auth",
  "/agent/auth/claim/complete",
  "/agent/auth/revoke",
  "/agent/auth/credential",
  "/oauth2/token",
  "/oauth2/revoke",
  "/oauth2/register",
  "/rpc/projects/list",
  "/api/projects/create",
  "/mcp",
  "/.well-known/oauth-authorization-server",
  "/.well-known/oauth-protected-resource",
  "/auth.md",
  "/openapi.json",
];

describe("preflights", () => {
  it.each(openPaths)("answers one to %s with 204 and the CORS headers, without credentials", async (path) => {
    const response = await preflight(path);
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toBe("GET, POST, DELETE, OPTIONS");
    const allowed = (response.headers.get("access-control-allow-headers") ?? "").toLowerCase().split(", ");
    expect(allowed).toEqual(expect.arrayContaining(["authorization", "content-type", "mcp-protocol-version"]));
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
    expect(await response.text()).toBe("");
  });

  it("is answered before authentication, the rate limit and the body limit", async () => {
    // The registration limit is 1 a minute here: preflights must not spend it.
    for (let index = 0; index < 3; index += 1) expect((await preflight("/agent/auth")).status).toBe(204);
    const registration = await fetch(`${weft.url}/agent/auth`, {
      method: "POST",
      headers: { origin, "content-type": "application/json" },
      body: JSON.stringify(emailRegistration("preflight@example.com")),
    });
    expect(registration.status).toBe(201);
    expect(registration.headers.get("access-control-allow-origin")).toBe("*");

    // fetch sends no body with OPTIONS; node:http can, and the 1 MiB limit must not see it.
    for (const path of ["/agent/auth", "/rpc/projects/list"]) {
      const status = await new Promise<number | undefined>((resolve, reject) => {
        const request = httpRequest(`${weft.url}${path}`, {
          method: "OPTIONS",
          headers: { origin, "access-control-request-method": "POST", "content-length": String(2 * 1024 * 1024) },
        });
        request.on("response", (response) => {
          response.resume();
          resolve(response.statusCode);
        });
        request.on("error", reject);
        request.end(Buffer.alloc(2 * 1024 * 1024, "x"));
      });
      expect(status, path).toBe(204);
    }
  });

  it("is not answered on the pages meant for a person", async () => {
    for (const path of [
      "/agent/auth/approve?token=apv_x",
      "/agent/auth/claim/reg_01jzzzzzzzzzzzzzzzzzzzzzzz",
      "/dev/mailbox",
      "/triggers/forms/prj_01jzzzzzzzzzzzzzzzzzzzzzzz/booking",
      "/oauth2/authorize",
      "/healthz",
    ]) {
      const response = await preflight(path);
      expect(response.status, path).not.toBe(204);
      expect(response.headers.get("access-control-allow-origin"), path).toBeNull();
    }
  });
});

describe("simple and actual requests", () => {
  it("lets any origin read the discovery documents", async () => {
    for (const path of [
      "/.well-known/oauth-authorization-server",
      "/.well-known/oauth-protected-resource",
      "/auth.md",
      "/openapi.json",
    ]) {
      const response = await fetch(`${weft.url}${path}`, { headers: { origin } });
      expect(response.status, path).toBe(200);
      expect(response.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(response.headers.get("access-control-allow-credentials"), path).toBeNull();
    }
  });

  it("lets any origin read the 401 challenge of the API", async () => {
    for (const path of ["/rpc/projects/list", "/api/projects/list"]) {
      const response = await fetch(`${weft.url}${path}`, {
        method: "POST",
        headers: { origin, "content-type": "application/json" },
        body: "{}",
      });
      expect(response.status).toBe(401);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
      expect(response.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate");
      expect(response.headers.get("www-authenticate")).toContain("resource_metadata=");
    }
  });

  it("sends no CORS headers on the pages meant for a person", async () => {
    for (const path of [
      "/agent/auth/approve?token=apv_x",
      "/dev/mailbox",
      "/agent/auth/claim/reg_x",
      "/oauth2/authorize",
    ]) {
      const response = await fetch(`${weft.url}${path}`, { headers: { origin } });
      expect(response.headers.get("access-control-allow-origin"), path).toBeNull();
    }
  });
});

describe("which paths are open to other origins", () => {
  it("follows the paths of the auth and base URLs", () => {
    const allowsCrossOrigin = crossOriginRule({ authPath: "/auth", basePath: "/w.ft" });
    for (const path of [
      "/auth/agent/auth",
      "/auth/agent/auth/claim/complete",
      "/auth/auth.md",
      "/auth/.well-known/oauth-authorization-server",
      "/auth/oauth2/token",
      "/auth/oauth2/revoke",
      "/auth/oauth2/register",
      "/w.ft/rpc/projects/list",
      "/rpc/projects/list",
      "/w.ft/api/projects/list",
      "/w.ft/openapi.json",
      "/w.ft/mcp",
      "/.well-known/oauth-protected-resource/w.ft",
    ]) {
      expect(allowsCrossOrigin(path), path).toBe(true);
    }
    for (const path of [
      "/agent/auth",
      "/auth/agent/auth/approve",
      "/auth/agent/auth/claim/reg_x",
      "/auth/agent/authority",
      "/rpcx/projects",
      "/wxft/rpc/projects/list",
      "/auth/agent/auth/approved",
      "/auth/oauth2/authorize",
      "/w.ft/forms/contact",
      "/dev/mailbox",
      "/",
    ]) {
      expect(allowsCrossOrigin(path), path).toBe(false);
    }
  });
});

/** Debian's chromium; another build can be named with WEFT_CHROMIUM_PATH. */

describe.skipIf(!hasChromium)("a browser-based agent on another origin", () => {
  let browser: Browser;
  let agentSite: Server;
  let agentUrl: string;

  beforeAll(async () => {
    agentSite = createServer((_request, response) => {
      response.setHeader("content-type", "text/html");
      response.end("<!doctype html><title>agent</title>");
    });
    await new Promise<void>((resolve) => agentSite.listen(0, "127.0.0.1", resolve));
    // Another port is another origin; "localhost" rather than 127.0.0.1 makes it another host too.
    agentUrl = `http://localhost:${(agentSite.address() as AddressInfo).port}/`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((resolve) => agentSite?.close(() => resolve()));
  });

  it("discovers, reads the challenge, calls the API with a bearer token and the registration API; it cannot read the mailbox", async () => {
    const page = await browser.newPage();
    await page.goto(agentUrl);
    const seen = await page.evaluate(
      async ({ base, token }) => {
        const challenge = await fetch(`${base}/rpc/projects/list`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ json: {} }),
        });
        const metadata = await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json();
        const called = await fetch(`${base}/rpc/projects/list`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: JSON.stringify({ json: {} }),
        });
        const revoked = await fetch(`${base}/agent/auth/revoke`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ credential: "weft_not_a_credential" }),
        });
        const mailbox = await fetch(`${base}/dev/mailbox`).then(
          () => "read",
          () => "blocked",
        );
        return {
          origin: (globalThis as unknown as { location: { origin: string } }).location.origin,
          challengeStatus: challenge.status,
          challenge: challenge.headers.get("www-authenticate"),
          resource: (metadata as { resource: string }).resource,
          calledStatus: called.status,
          totalCount: ((await called.json()) as { json: { totalCount: number } }).json.totalCount,
          revoked: [revoked.status, await revoked.json()],
          mailbox,
        };
      },
      { base: weft.url, token: caller.credential },
    );
    expect(seen).toEqual({
      origin: agentUrl.replace(/\/$/, ""),
      challengeStatus: 401,
      challenge: `Bearer resource_metadata="${weft.url}/.well-known/oauth-protected-resource"`,
      resource: weft.url,
      calledStatus: 200,
      totalCount: 0,
      revoked: [200, {}],
      mailbox: "blocked",
    });
    await page.close();
  });
});
