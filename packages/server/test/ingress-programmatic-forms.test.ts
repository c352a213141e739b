import {
  basicAuthorization,
  deployManifest,
  executionCount,
  executionRow,
  startTestPlatform,
  type TestPlatform,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let weft: TestPlatform;
const alpha = "prj_01jprogrammaticforms000000a";
const beta = "prj_01jprogrammaticforms000000b";
const rateLimit = 5;

const schema = {
  type: "object",
  properties: { email: { type: "string", format: "email" }, seats: { type: "integer", minimum: 1 } },
  required: ["email"],
};

beforeAll(async () => {
  weft = await startTestPlatform({ env: { WEFT_RATE_LIMIT_FORMS: String(rateLimit) } });
  await deployManifest(weft, alpha, {
    version: 1,
    workflows: [{ name: "onboard" }],
    forms: [
      { name: "contact", workflow: "onboard", schema, globalName: true },
      { name: "shared", workflow: "onboard", schema },
      { name: "staff", workflow: "onboard", visibility: "internal", schema, globalName: true },
      { name: "closed", workflow: "onboard", disabled: true, schema, globalName: true },
      {
        name: "private",
        workflow: "onboard",
        schema,
        basicAuth: { username: "ann", password: "open sesame" },
        globalName: true,
      },
      { name: "limited", workflow: "onboard", schema },
      { name: "spare", workflow: "onboard", schema },
    ],
  });
  await deployManifest(weft, beta, {
    version: 1,
    workflows: [{ name: "onboard" }],
    forms: [
      { name: "shared", workflow: "onboard", schema },
      { name: "staff", workflow: "onboard", visibility: "internal", schema },
    ],
  });
});
afterAll(() => weft.stop());

function submit(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${weft.url}/forms/${path}`, {
    method: "POST",
    body: typeof body === "string" ? body : JSON.stringify(body),
    headers: { "content-type": "application/json", ...headers },
  });
}

async function totalExecutions(): Promise<number> {
  return (await executionCount(weft, alpha)) + (await executionCount(weft, beta));
}

describe("POST {base_url}/forms/:formName", () => {
  it("enqueues a valid JSON submission and answers 202 with the execution ids", async () => {
    const response = await submit("contact", { email: "ada@example.com", seats: 2 });
    expect(response.status).toBe(202);
    const body = (await response.json()) as { message: string; executionIds: string[] };
    expect(body.message).toEqual(expect.any(String));
    expect(body.executionIds).toHaveLength(1);
    const row = await executionRow(weft, body.executionIds[0] ?? "");
    expect(row).toMatchObject({
      projectId: alpha,
      triggerKind: "form",
      triggerName: "contact",
      input: { email: "ada@example.com", seats: 2 },
    });
  });

  it("asks for a projectId when no form claims the name instance-wide, and accepts it with one", async () => {
    const before = await totalExecutions();
    const ambiguous = await submit("shared", { email: "ada@example.com" });
    expect(ambiguous.status).toBe(400);
    const refusal = (await ambiguous.json()) as { error: string; message: string };
    expect(refusal.error).toBe("project_required");
    expect(refusal.message).toContain("projectId");
    expect(await totalExecutions()).toBe(before);
    const chosen = await submit(`shared?projectId=${beta}`, { email: "ada@example.com" });
    expect(chosen.status).toBe(202);
    expect(await executionCount(weft, beta)).toBe(1);
  });

  it("does not reveal internal forms, even one that claims its name", async () => {
    const before = await totalExecutions();
    const response = await submit("staff", { email: "ada@example.com" });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: "not_found" });
    const direct = await submit(`staff?projectId=${alpha}`, { email: "ada@example.com" });
    expect(direct.status).toBe(404);
    expect(await totalExecutions()).toBe(before);
  });

  it("refuses unknown, disabled, unauthenticated and invalid submissions, enqueuing nothing", async () => {
    const before = await totalExecutions();
    const unknown = await submit(`nope?projectId=${alpha}`, { email: "ada@example.com" });
    expect(unknown.status).toBe(404);
    const unclaimed = await submit("nope", { email: "ada@example.com" });
    expect(unclaimed.status).toBe(400);
    expect(await unclaimed.json()).toMatchObject({ error: "project_required" });
    const disabled = await submit("closed", { email: "ada@example.com" });
    expect(disabled.status).toBe(403);
    expect(await disabled.json()).toMatchObject({ error: "form_disabled" });
    const unauthenticated = await submit("private", { email: "ada@example.com" });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get("www-authenticate")).toMatch(/^Basic realm=/);
    const invalid = await submit("contact", { email: "ada@example.com", seats: 0 });
    expect(invalid.status).toBe(400);
    const issues = (await invalid.json()) as { error: string; issues: { path: string; message: string }[] };
    expect(issues.error).toBe("invalid_input");
    expect(issues.issues).toEqual([{ path: "seats", message: expect.any(String) }]);
    const missing = await submit("contact", {});
    expect(missing.status).toBe(400);
    const broken = await submit("contact", "{not json");
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: "invalid_body" });
    const notJson = await submit("contact", "email=a", { "content-type": "application/x-www-form-urlencoded" });
    expect(notJson.status).toBe(415);
    expect(await totalExecutions()).toBe(before);
  });

  it("accepts a basic-auth form's submission with its credentials", async () => {
    const response = await submit(
      "private",
      { email: "ada@example.com" },
      { authorization: basicAuthorization("ann", "open sesame") },
    );
    expect(response.status).toBe(202);
  });

  it("honours Idempotency-Key, and refuses it sent again with another body with 409 idempotency_key_reused", async () => {
    const path = `spare?projectId=${alpha}`;
    const key = { "idempotency-key": "signup-1" };
    const first = await submit(path, { email: "ada@example.com" }, key);
    expect(first.status).toBe(202);
    const { executionIds } = (await first.json()) as { executionIds: string[] };
    const before = await totalExecutions();
    const retried = await submit(path, { email: "ada@example.com" }, key);
    expect(retried.status).toBe(202);
    expect(((await retried.json()) as { executionIds: string[] }).executionIds).toEqual(executionIds);
    const reused = await submit(path, { email: "grace@example.com" }, key);
    expect(reused.status).toBe(409);
    expect(await reused.json()).toMatchObject({ error: "idempotency_key_reused", message: expect.any(String) });
    const malformed = await submit(path, { email: "ada@example.com" }, { "idempotency-key": "with space" });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: "invalid_body" });
    expect(await totalExecutions()).toBe(before);
  });

  it("limits submissions per client IP and form, answering 429 with Retry-After", async () => {
    for (let index = 0; index < rateLimit; index += 1) {
      expect((await submit(`limited?projectId=${alpha}`, { email: "ada@example.com" })).status).toBe(202);
    }
    const before = await totalExecutions();
    const limited = await submit(`limited?projectId=${alpha}`, { email: "ada@example.com" });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(await limited.json()).toMatchObject({ error: "rate_limited" });
    expect(await totalExecutions()).toBe(before);
    expect((await submit(`spare?projectId=${alpha}`, { email: "ada@example.com" })).status).toBe(202);
  });
});

describe("the client IP a programmatic form's limit counts", () => {
  async function limitedPlatform(env: Record<string, string>): Promise<TestPlatform> {
    const platform = await startTestPlatform({ env: { WEFT_RATE_LIMIT_FORMS: "1", ...env } });
    await deployManifest(platform, alpha, {
      version: 1,
      workflows: [{ name: "onboard" }],
      forms: [{ name: "contact", workflow: "onboard", schema, globalName: true }],
    });
    return platform;
  }

  function submitAs(platform: TestPlatform, forwardedFor: string): Promise<Response> {
    return fetch(`${platform.url}/forms/contact`, {
      method: "POST",
      body: JSON.stringify({ email: "ada@example.com" }),
      headers: { "content-type": "application/json", "x-forwarded-for": forwardedFor },
    });
  }

  it("is the socket address: X-Forwarded-For from an untrusted peer is ignored", async () => {
    const platform = await limitedPlatform({});
    try {
      expect((await submitAs(platform, "203.0.113.1")).status).toBe(202);
      expect((await submitAs(platform, "203.0.113.2")).status).toBe(429);
    } finally {
      await platform.stop();
    }
  });

  it("is the forwarded address behind a trusted proxy", async () => {
    const platform = await limitedPlatform({ WEFT_TRUSTED_PROXIES: "127.0.0.1" });
    try {
      expect((await submitAs(platform, "203.0.113.1")).status).toBe(202);
      expect((await submitAs(platform, "203.0.113.2")).status).toBe(202);
      expect((await submitAs(platform, "203.0.113.1")).status).toBe(429);
    } finally {
      await platform.stop();
    }
  });
});
