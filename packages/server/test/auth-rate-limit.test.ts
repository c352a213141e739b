import { emailRegistration, postJson, postTokenRequest, startTestPlatform, type TestPlatform } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClientIpResolver } from "../src/http/client-ip.ts";

describe("client IP", () => {
  it("is the socket peer unless the peer is a trusted proxy", () => {
    const none = createClientIpResolver([]);
    expect(none.resolve("203.0.113.9", "198.51.100.1")).toBe("203.0.113.9");
    expect(none.resolve("::ffff:203.0.113.9", undefined)).toBe("203.0.113.9");

    const proxied = createClientIpResolver(["10.0.0.0/8", "fd00::1"]);
    expect(proxied.resolve("203.0.113.9", "198.51.100.1")).toBe("203.0.113.9");
    expect(proxied.resolve("10.1.2.3", "198.51.100.1")).toBe("198.51.100.1");
    expect(proxied.resolve("::ffff:10.1.2.3", "198.51.100.1, 10.0.0.7")).toBe("198.51.100.1");
    // A client cannot choose its address by prepending to the header.
    expect(proxied.resolve("10.1.2.3", "1.1.1.1, 198.51.100.1")).toBe("198.51.100.1");
    expect(proxied.resolve("fd00::1", "2001:db8::5")).toBe("2001:db8::5");
    expect(proxied.resolve("10.1.2.3", undefined)).toBe("10.1.2.3");
  });
});

describe("rate limits", () => {
  let server: TestPlatform;

  beforeAll(async () => {
    server = await startTestPlatform({
      env: { WEFT_RATE_LIMIT_REGISTER: "2", WEFT_RATE_LIMIT_CLAIM: "2", WEFT_RATE_LIMIT_REVOKE: "2" },
    });
  });

  afterAll(async () => {
    await server.stop();
  });

  it.each([
    ["/agent/auth", emailRegistration("limited@example.com")],
    ["/agent/auth/claim/complete", { claim_token: "clm_x", otp: "123456" }],
    ["/agent/auth/revoke", { credential: "weft_x" }],
    ["/oauth2/register", { client_name: "Limited", redirect_uris: ["http://127.0.0.1/callback"] }],
  ])("answers 429 rate_limited with Retry-After past the limit on %s", async (path, body) => {
    const statuses = [];
    for (let index = 0; index < 2; index += 1) statuses.push((await postJson(`${server.url}${path}`, body)).status);
    expect(statuses).not.toContain(429);
    const limited = await postJson(`${server.url}${path}`, body);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: "rate_limited", error_description: expect.any(String) });
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(limited.headers.get("retry-after"))).toBeLessThanOrEqual(60);
  });

  it("limits the token endpoint like registration, on a counter of its own", async () => {
    const request = () => postTokenRequest(server.url, { subjectToken: "not-a-jwt", audience: "prj_x" });
    const statuses = [(await request()).status, (await request()).status];
    expect(statuses).not.toContain(429);
    const limited = await request();
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({ error: "rate_limited", error_description: expect.any(String) });
  });

  it("counts per client IP: X-Forwarded-For is believed only from a trusted proxy", async () => {
    const body = { credential: "weft_x" };
    const behindProxy = await startTestPlatform({
      env: { WEFT_RATE_LIMIT_REVOKE: "1", WEFT_TRUSTED_PROXIES: "127.0.0.1" },
    });
    const direct = await startTestPlatform({ env: { WEFT_RATE_LIMIT_REVOKE: "1" } });
    try {
      const viaProxy = (ip: string) =>
        postJson(`${behindProxy.url}/agent/auth/revoke`, body, { "x-forwarded-for": ip }).then((r) => r.status);
      expect(await viaProxy("198.51.100.1")).toBe(200);
      expect(await viaProxy("198.51.100.2")).toBe(200);
      expect(await viaProxy("198.51.100.1")).toBe(429);

      const spoofing = (ip: string) =>
        postJson(`${direct.url}/agent/auth/revoke`, body, { "x-forwarded-for": ip }).then((r) => r.status);
      expect(await spoofing("198.51.100.1")).toBe(200);
      expect(await spoofing("198.51.100.2")).toBe(429);
    } finally {
      await behindProxy.stop();
      await direct.stop();
    }
  });

  it("answers server_error when the database is gone, without internals", async () => {
    const broken = await startTestPlatform();
    try {
      await broken.database.close();
      for (const [path, body] of [
        ["/agent/auth", emailRegistration("gone@example.com")],
        ["/agent/auth/claim/complete", { claim_token: "clm_x", otp: "123456" }],
        ["/agent/auth/revoke", { credential: "weft_x" }],
      ] as const) {
        const response = await postJson(`${broken.url}${path}`, body);
        expect(response.status).toBe(500);
        expect(response.body).toEqual({
          error: "server_error",
          error_description: expect.stringMatching(/request id/),
        });
      }
    } finally {
      await broken.platform.stop();
    }
  });

  it("does not limit the discovery document", async () => {
    for (let index = 0; index < 5; index += 1) {
      expect((await fetch(`${server.url}/.well-known/oauth-authorization-server`)).status).toBe(200);
    }
  });
});
