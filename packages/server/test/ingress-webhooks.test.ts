import {
  createDatabaseGate,
  deployManifest,
  executionCount,
  executionRow,
  startTestPlatform,
  type TestPlatform,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookBodyLimitBytes } from "../src/ingress/webhook-routes.ts";
import { createManualTimers } from "../src/shared/timers.ts";

const timers = createManualTimers();
const gate = createDatabaseGate();
let weft: TestPlatform;
const projectId = "prj_01jwebhooks000000000000000a";

beforeAll(async () => {
  // No worker: its background claims would meet the closed gate and could be the transaction that
  // `gate.waiting()` sees, firing the timers before this request's budget exists.
  weft = await startTestPlatform({ timers, wrapDatabase: gate.wrap, env: { WEFT_ROLES: "auth,api,ingress" } });
  await deployManifest(weft, projectId, {
    version: 1,
    workflows: [
      { name: "handle" },
      {
        name: "typed",
        inputSchema: {
          type: "object",
          properties: { body: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } },
          required: ["body"],
        },
      },
    ],
    webhooks: [
      { name: "open", workflow: "handle" },
      { name: "signed", workflow: "handle", secret: { header: "X-Hook-Secret", value: "s3cret-value" } },
      { name: "typed", workflow: "typed" },
    ],
  });
});
afterAll(() => weft.stop());

const hookUrl = (name: string, query = "") => `${weft.url}/triggers/webhooks/${projectId}/${name}${query}`;

async function acceptedId(response: Response): Promise<string> {
  expect(response.status).toBe(202);
  const body = (await response.json()) as { message: string; executionIds: string[] };
  expect(body.message).toEqual(expect.any(String));
  expect(body.executionIds).toHaveLength(1);
  return body.executionIds[0] ?? "";
}

describe("POST /triggers/webhooks/:projectId/:webhookName", () => {
  it("enqueues the body, headers, query and method as the execution's input", async () => {
    const executionId = await acceptedId(
      await fetch(hookUrl("signed", "?source=ci&tag=a&tag=b"), {
        method: "POST",
        body: JSON.stringify({ event: "push", n: 1 }),
        headers: {
          "content-type": "application/json",
          "x-hook-secret": "s3cret-value",
          "x-event": "push",
          authorization: "Bearer should-not-be-stored",
          cookie: "session=nope",
        },
      }),
    );
    const row = await executionRow(weft, executionId);
    expect(row).toMatchObject({ workflow: "handle", triggerKind: "webhook", triggerName: "signed" });
    const input = row?.input as { body: unknown; headers: Record<string, string>; query: unknown; method: string };
    expect(input.body).toEqual({ event: "push", n: 1 });
    expect(input.query).toEqual({ source: "ci", tag: ["a", "b"] });
    expect(input.method).toBe("POST");
    expect(input.headers["x-event"]).toBe("push");
    expect(input.headers["content-type"]).toBe("application/json");
    expect(Object.keys(input.headers)).not.toContain("x-hook-secret");
    expect(Object.keys(input.headers)).not.toContain("authorization");
    expect(Object.keys(input.headers)).not.toContain("cookie");
  });

  it("keeps a non-JSON body as text", async () => {
    const executionId = await acceptedId(
      await fetch(hookUrl("open"), { method: "POST", body: "a=1&b=2", headers: { "content-type": "text/plain" } }),
    );
    expect((await executionRow(weft, executionId))?.input).toMatchObject({ body: "a=1&b=2" });
  });

  it("refuses a missing or wrong secret with 401, enqueuing nothing", async () => {
    const before = await executionCount(weft, projectId);
    for (const headers of [{}, { "x-hook-secret": "wrong" }, { "x-hook-secret": "s3cret-valu" }]) {
      const response = await fetch(hookUrl("signed"), { method: "POST", body: "{}", headers });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: "unauthorized" });
    }
    expect(await executionCount(weft, projectId)).toBe(before);
  });

  it("answers 404 for an unknown webhook or project, 400 for broken JSON or input the workflow refuses", async () => {
    const before = await executionCount(weft, projectId);
    expect((await fetch(hookUrl("nope"), { method: "POST", body: "{}" })).status).toBe(404);
    const otherProject = `${weft.url}/triggers/webhooks/prj_01jnosuchproject000000000000/open`;
    expect((await fetch(otherProject, { method: "POST", body: "{}" })).status).toBe(404);
    const broken = await fetch(hookUrl("open"), {
      method: "POST",
      body: "{broken",
      headers: { "content-type": "application/json" },
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: "invalid_body" });
    const refused = await fetch(hookUrl("typed"), {
      method: "POST",
      body: JSON.stringify({ n: "one" }),
      headers: { "content-type": "application/json" },
    });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: "invalid_input" });
    expect(await executionCount(weft, projectId)).toBe(before);
  });

  it("caps the body size with 413", async () => {
    const before = await executionCount(weft, projectId);
    const response = await fetch(hookUrl("open"), {
      method: "POST",
      body: "x".repeat(webhookBodyLimitBytes + 1),
      headers: { "content-type": "text/plain" },
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: "payload_too_large" });
    expect(await executionCount(weft, projectId)).toBe(before);
  });

  it("caps a body sent without Content-Length (chunked) too, and accepts one of exactly the limit", async () => {
    const before = await executionCount(weft, projectId);
    const chunked = (size: number) => {
      const chunk = new TextEncoder().encode("y".repeat(16 * 1024));
      let left = size;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (left <= 0) return controller.close();
          const part = chunk.subarray(0, Math.min(chunk.length, left));
          left -= part.length;
          controller.enqueue(part);
        },
      });
    };
    const post = (size: number) =>
      fetch(hookUrl("open"), {
        method: "POST",
        body: chunked(size),
        headers: { "content-type": "text/plain" },
        duplex: "half",
      } as RequestInit);
    const refused = await post(webhookBodyLimitBytes + 1);
    expect(refused.status).toBe(413);
    expect(await refused.json()).toMatchObject({ error: "payload_too_large" });
    expect(await executionCount(weft, projectId)).toBe(before);
    const executionId = await acceptedId(await post(webhookBodyLimitBytes));
    expect((await executionRow(weft, executionId))?.input).toMatchObject({ body: "y".repeat(webhookBodyLimitBytes) });
  });

  it("deduplicates by Idempotency-Key", async () => {
    const before = await executionCount(weft, projectId);
    const call = () =>
      fetch(hookUrl("open"), { method: "POST", body: '{"a":1}', headers: { "idempotency-key": "delivery-42" } });
    const first = await acceptedId(await call());
    const second = await acceptedId(await call());
    expect(second).toBe(first);
    expect(await executionCount(weft, projectId)).toBe(before + 1);
    weft.clock.advance(24 * 60 * 60 * 1000 + 1);
    expect(await acceptedId(await call())).not.toBe(first);
  });

  it("answers 409 idempotency_key_reused for an Idempotency-Key sent again with another body, enqueuing nothing", async () => {
    const call = (body: string, headers: Record<string, string> = {}) =>
      fetch(hookUrl("open"), { method: "POST", body, headers: { "idempotency-key": "delivery-43", ...headers } });
    const first = await acceptedId(await call('{"a":1}'));
    const before = await executionCount(weft, projectId);
    const reused = await call('{"a":2}');
    expect(reused.status).toBe(409);
    expect(await reused.json()).toMatchObject({ error: "idempotency_key_reused", message: expect.any(String) });
    expect(await executionCount(weft, projectId)).toBe(before);
    // A retry of the same body is the same request, whatever its other headers say.
    expect(await acceptedId(await call('{"a":1}', { "x-delivery-attempt": "2" }))).toBe(first);
  });

  it("answers 503 with Retry-After when the database is too slow, enqueuing nothing", async () => {
    const before = await executionCount(weft, projectId);
    gate.close();
    const pending = fetch(hookUrl("open"), { method: "POST", body: "{}" });
    await gate.waiting();
    timers.fireAll();
    const response = await pending;
    expect(response.status).toBe(503);
    expect(response.headers.get("retry-after")).toBe("5");
    expect(await response.json()).toMatchObject({ error: "unavailable" });
    gate.open();
    await gate.settled();
    expect(await executionCount(weft, projectId)).toBe(before);
  });
});
