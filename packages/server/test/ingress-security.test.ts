import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { basicAuthChallenge, basicAuthMatches, parseBasicAuthorization } from "../src/ingress/basic-auth.ts";
import { checkCsrfToken, csrfTokenLifetimeMs, deriveCsrfKey, issueCsrfToken } from "../src/ingress/csrf-token.ts";
import { buildWebhookInput } from "../src/ingress/webhook-input.ts";
import { hashSecret } from "../src/shared/secrets.ts";

describe("CSRF tokens", () => {
  const key = deriveCsrfKey(randomBytes(32));
  const binding = { projectId: "prj_a", formName: "contact" };
  const issued = new Date("2026-01-01T00:00:00Z");
  const token = issueCsrfToken(key, binding, issued);

  it("are accepted for their form until they expire", () => {
    expect(checkCsrfToken(key, binding, token, issued)).toMatchObject({ ok: true });
    expect(checkCsrfToken(key, binding, token, new Date(issued.getTime() + csrfTokenLifetimeMs - 1))).toMatchObject({
      ok: true,
    });
    expect(checkCsrfToken(key, binding, token, new Date(issued.getTime() + csrfTokenLifetimeMs))).toEqual({
      ok: false,
      reason: "expired",
    });
  });

  it("are refused when missing, malformed, forged, for another form or project, or under another key", () => {
    expect(checkCsrfToken(key, binding, undefined, issued)).toEqual({ ok: false, reason: "missing" });
    expect(checkCsrfToken(key, binding, "nonsense", issued)).toEqual({ ok: false, reason: "malformed" });
    expect(checkCsrfToken(key, { ...binding, formName: "other" }, token, issued)).toEqual({
      ok: false,
      reason: "forged",
    });
    expect(checkCsrfToken(key, { ...binding, projectId: "prj_b" }, token, issued)).toEqual({
      ok: false,
      reason: "forged",
    });
    expect(checkCsrfToken(deriveCsrfKey(randomBytes(32)), binding, token, issued)).toEqual({
      ok: false,
      reason: "forged",
    });
    const [expires, nonce, mac] = token.split(".") as [string, string, string];
    const extended = `${Number(expires) + 1_000_000}.${nonce}.${mac}`;
    expect(checkCsrfToken(key, binding, extended, issued)).toEqual({ ok: false, reason: "forged" });
  });

  it("carry a fresh nonce each time", () => {
    const again = issueCsrfToken(key, binding, issued);
    expect(again).not.toBe(token);
    const first = checkCsrfToken(key, binding, token, issued);
    const second = checkCsrfToken(key, binding, again, issued);
    expect(first.ok && second.ok && first.nonce !== second.nonce).toBe(true);
  });
});

describe("basic auth", () => {
  const stored = { username: "alice", passwordHash: hashSecret("s3cret:with colon") };
  const header = (text: string) => `Basic ${Buffer.from(text).toString("base64")}`;

  it("parses the header, keeping colons in the password", () => {
    expect(parseBasicAuthorization(header("alice:s3cret:with colon"))).toEqual({
      username: "alice",
      password: "s3cret:with colon",
    });
    expect(parseBasicAuthorization(undefined)).toBeUndefined();
    expect(parseBasicAuthorization("Bearer abc")).toBeUndefined();
    expect(parseBasicAuthorization(header("no-colon"))).toBeUndefined();
  });

  it("accepts only the right username and password", () => {
    expect(basicAuthMatches(parseBasicAuthorization(header("alice:s3cret:with colon")), stored)).toBe(true);
    expect(basicAuthMatches(parseBasicAuthorization(header("alice:wrong")), stored)).toBe(false);
    expect(basicAuthMatches(parseBasicAuthorization(header("bob:s3cret:with colon")), stored)).toBe(false);
    expect(basicAuthMatches(undefined, stored)).toBe(false);
  });

  it("challenges with a quoted realm", () => {
    expect(basicAuthChallenge('Contact "us"')).toBe('Basic realm="Contact us", charset="UTF-8"');
  });
});

describe("webhook input", () => {
  const request = {
    method: "POST",
    url: "http://localhost/triggers/webhooks/prj_a/hook?a=1&b=2&b=3",
    secretHeader: "x-hook-secret",
  };

  it("parses JSON bodies and keeps headers and query, without credentials or the secret header", () => {
    const result = buildWebhookInput({
      ...request,
      headers: [
        ["Content-Type", "application/vnd.api+json; charset=utf-8"],
        ["X-GitHub-Event", "push"],
        ["Authorization", "Bearer x"],
        ["cookie", "a=b"],
        ["x-hook-secret", "s"],
      ],
      rawBody: '{"n": 2}',
    });
    expect(result).toEqual({
      ok: true,
      input: {
        body: { n: 2 },
        headers: { "content-type": "application/vnd.api+json; charset=utf-8", "x-github-event": "push" },
        query: { a: "1", b: ["2", "3"] },
        method: "POST",
      },
    });
  });

  it("keeps other bodies as text, an empty body as null, and refuses broken JSON", () => {
    const text = buildWebhookInput({ ...request, headers: [["content-type", "text/plain"]], rawBody: "a=1" });
    expect(text.ok && text.input.body).toBe("a=1");
    const empty = buildWebhookInput({ ...request, headers: [["content-type", "application/json"]], rawBody: "" });
    expect(empty.ok && empty.input.body).toBeNull();
    expect(buildWebhookInput({ ...request, headers: [["content-type", "application/json"]], rawBody: "{" }).ok).toBe(
      false,
    );
  });
});
