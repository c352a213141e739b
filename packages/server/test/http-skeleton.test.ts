import { startTestPlatform, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let weft: TestPlatform;

beforeAll(async () => {
  // The HTTP skeleton without the worker role: /healthz then reports no sandbox (see sandbox-startup.test.ts).
  weft = await startTestPlatform({ env: { WEFT_ROLES: "auth,api,ingress" } });
});

afterAll(async () => {
  await weft.stop();
});

describe("server skeleton", () => {
  it("answers /healthz with 200 while the database answers", async () => {
    const response = await fetch(`${weft.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  it("answers an unknown path with a JSON 404", async () => {
    const response = await fetch(`${weft.url}/no/such/path`, { method: "POST" });
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    expect(await response.json()).toEqual({ error: "not_found", message: "No route for POST /no/such/path." });
  });

  it("refuses a body over the limit with 413", async () => {
    const response = await fetch(`${weft.url}/healthz`, {
      method: "POST",
      body: "x".repeat(1024 * 1024 + 1),
      headers: { "content-type": "text/plain" },
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: "payload_too_large" });
  });

  it("sends security headers and a request id", async () => {
    const response = await fetch(`${weft.url}/healthz`);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(response.headers.get("x-request-id")).toMatch(/^req_/);
  });

  it("keeps an idle connection open longer than clients and proxies keep theirs", async () => {
    // A server that closes an idle connection first resets the request a client sends on it at that
    // moment; fetch lets its own go after about 4 s, load balancers after 60 s.
    const response = await fetch(`${weft.url}/healthz`);
    await response.body?.cancel();
    expect(response.headers.get("keep-alive")).toBe("timeout=65");
  });

  it("echoes a sane caller request id and replaces an unsafe one", async () => {
    const echoed = await fetch(`${weft.url}/healthz`, { headers: { "x-request-id": "trace-123" } });
    expect(echoed.headers.get("x-request-id")).toBe("trace-123");
    const replaced = await fetch(`${weft.url}/healthz`, { headers: { "x-request-id": "bad id\twith spaces" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^req_/);
  });
});

describe("health when the database is gone", () => {
  it("answers 503 once the database stops answering", async () => {
    const other = await startTestPlatform();
    try {
      await other.database.close();
      const response = await fetch(`${other.url}/healthz`);
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ status: "unavailable" });
    } finally {
      await other.platform.stop();
    }
  });
});
