import {
  callRpcAs,
  createTestIdentity,
  deployManifest,
  executionCount,
  formCsrfTokenOf,
  type RpcCallResult,
  startTestPlatform,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import { and, count, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executions } from "../src/db/schema/index.ts";

/** `hold` runs until the sandbox is ended; `echo` answers at once; `serial` holds, one at a time. */
const source = `
import { defineConfig, workflow } from "@weft/sdk";
const hold = async (_input: unknown, ctx: any) => {
  await ctx.step("hold", async () => { for (;;) await new Promise((resolve) => setTimeout(resolve, 50)); });
};
export default defineConfig({ workflows: [
  workflow({ name: "hold", retries: { maxAttempts: 1 }, run: hold }),
  workflow({ name: "serial", concurrency: 1, retries: { maxAttempts: 1 }, run: hold }),
  workflow({ name: "echo", retries: { maxAttempts: 1 }, async run(input: unknown) { return input; } }),
] });
`;
const retries = { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 };
const schema = { type: "object", properties: { email: { type: "string" } } };
const manifest = {
  version: 1 as const,
  workflows: [
    { name: "hold", retries },
    { name: "serial", concurrency: 1, retries },
    { name: "echo", retries },
  ],
  webhooks: [
    { name: "hold", workflow: "hold" },
    { name: "serial", workflow: "serial" },
    { name: "echo", workflow: "echo" },
  ],
  forms: [{ name: "contact", workflow: "echo", schema }],
};

/** The bound these tests run under (`WEFT_MAX_QUEUE_DELAY`), in seconds. */
const bound = 5;

interface Tenant {
  owner: TestIdentity;
  projectId: string;
}

async function deployTenant(weft: TestPlatform, email: string): Promise<Tenant> {
  const owner = await createTestIdentity(weft, email);
  const created = await callRpcAs(weft, owner, "projects.create", { name: email.split("@")[0] });
  expect(created.status).toBe(200);
  const projectId = (created.json as { id: string }).id;
  await deployManifest(weft, projectId, manifest, { configSource: source });
  return { owner, projectId };
}

function webhook(weft: TestPlatform, tenant: Tenant, name = "echo"): Promise<Response> {
  return fetch(`${weft.url}/triggers/webhooks/${tenant.projectId}/${name}`, { method: "POST", body: "{}" });
}

function programmaticForm(weft: TestPlatform, tenant: Tenant): Promise<Response> {
  return fetch(`${weft.url}/forms/contact?projectId=${tenant.projectId}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "ada@example.com" }),
  });
}

/** The hosted form, opened then submitted: 303 once accepted. */
async function hostedForm(weft: TestPlatform, tenant: Tenant): Promise<Response> {
  const url = `${weft.url}/triggers/forms/${tenant.projectId}/contact`;
  const token = formCsrfTokenOf(await (await fetch(url)).text());
  return fetch(url, {
    method: "POST",
    body: new URLSearchParams({ _csrf: token, email: "ada@example.com" }),
    redirect: "manual",
  });
}

function run(weft: TestPlatform, tenant: Tenant, workflow = "echo"): Promise<RpcCallResult> {
  return callRpcAs(weft, tenant.owner, "workflows.run", { projectId: tenant.projectId, workflow, input: {} });
}

/** One start through each way in, sent together: a refusal is answered only after its pause. */
function everySurface(weft: TestPlatform, tenant: Tenant) {
  return Promise.all([
    webhook(weft, tenant),
    programmaticForm(weft, tenant),
    hostedForm(weft, tenant),
    run(weft, tenant),
  ]);
}

/** Refreshes the platform's reading of the queue, as its interval does. */
async function readQueue(weft: TestPlatform): Promise<void> {
  const backpressure = weft.platform.context.backpressure;
  if (backpressure === undefined) throw new Error("the platform ingests but reads no queue");
  await backpressure.refresh();
}

/** Expects a JSON ingress refusal with `error` and `Retry-After`, whose message matches `message`. */
async function expectIngressRefusal(response: Response, status: number, error: string, message: RegExp) {
  expect(response.status).toBe(status);
  expect(response.headers.get("retry-after")).toBe(String(bound));
  const body = (await response.json()) as { error: string; message: string };
  expect(body.error).toBe(error);
  expect(body.message).toMatch(message);
}

/** Expects the RPC refusal `code` (HTTP `status`) with `data.retryAfterSeconds` and `Retry-After`. */
function expectRpcRefusal(answer: RpcCallResult, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers.get("retry-after")).toBe(String(bound));
  expect(answer.json).toMatchObject({ code, data: { retryAfterSeconds: bound } });
}

/** How many executions of `workflow` the tenant runs now. */
async function executionsRunning(weft: TestPlatform, tenant: Tenant, workflow: string): Promise<number> {
  const [row] = await weft.database.db
    .select({ n: count() })
    .from(executions)
    .where(
      and(
        eq(executions.projectId, tenant.projectId),
        eq(executions.workflow, workflow),
        eq(executions.status, "running"),
      ),
    );
  return row?.n ?? 0;
}

/** Polls until `tenant` runs `n` executions of `workflow`: the worker claims them in its own time. */
async function untilRunning(weft: TestPlatform, tenant: Tenant, workflow: string, n: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while ((await executionsRunning(weft, tenant, workflow)) < n) {
    if (Date.now() > deadline) throw new Error(`${tenant.projectId} never ran ${n} executions`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("backpressure: executions the workers could start wait past the bound (no worker drains the queue)", () => {
  let weft: TestPlatform;
  let ada: Tenant;
  let bob: Tenant;

  beforeAll(async () => {
    weft = await startTestPlatform({ env: { WEFT_ROLES: "auth,api,ingress", WEFT_MAX_QUEUE_DELAY: String(bound) } });
    ada = await deployTenant(weft, "ada@backpressure.test");
    bob = await deployTenant(weft, "bob@backpressure.test");
  });
  afterAll(async () => {
    await weft.stop();
  });

  it("refuses every ingest 503 with Retry-After, queuing nothing, then accepts once the queue drains", async () => {
    for (let n = 0; n < 3; n++) expect((await webhook(weft, ada)).status).toBe(202);
    // A wait of exactly the bound is within it.
    weft.clock.advance(bound * 1000);
    await readQueue(weft);
    expect((await webhook(weft, bob)).status).toBe(202);

    weft.clock.advance(1);
    await readQueue(weft);
    const saturated = /The platform is saturated: an execution queued now would wait more than 5 s for a worker/;
    await Promise.all(
      [ada, bob].map(async (tenant) => {
        const [hooked, formed, page, ran] = await everySurface(weft, tenant);
        await expectIngressRefusal(hooked, 503, "unavailable", saturated);
        await expectIngressRefusal(formed, 503, "unavailable", saturated);
        expect(page.status).toBe(503);
        expect(page.headers.get("retry-after")).toBe(String(bound));
        expect(await page.text()).toContain("The platform is saturated");
        expectRpcRefusal(ran, 503, "SERVICE_UNAVAILABLE");
      }),
    );
    expect(await executionCount(weft, ada.projectId)).toBe(3);
    expect(await executionCount(weft, bob.projectId)).toBe(1);

    // The queue drains: every queued execution ends (cancelled here, as no worker runs them).
    const waiting = await weft.database.db
      .select({ id: executions.id, projectId: executions.projectId })
      .from(executions)
      .where(eq(executions.status, "queued"));
    for (const execution of waiting) {
      const owner = execution.projectId === ada.projectId ? ada : bob;
      const cancelled = await callRpcAs(weft, owner.owner, "workflows.cancelExecution", { executionId: execution.id });
      expect(cancelled.status).toBe(200);
    }
    await readQueue(weft);
    for (const tenant of [ada, bob]) {
      expect((await webhook(weft, tenant)).status).toBe(202);
      expect((await programmaticForm(weft, tenant)).status).toBe(202);
      expect((await hostedForm(weft, tenant)).status).toBe(303);
      expect((await run(weft, tenant)).status).toBe(200);
    }
  });

  it("refuses before the oldest has waited the bound when the queue fills and nothing drains it", async () => {
    // What the last test queued waits 3 s, seen for the first time: within the bound.
    weft.clock.advance(3000);
    await readQueue(weft);
    expect((await webhook(weft, ada)).status).toBe(202);
    // A second later it waits 4 s: the head stood still, so one queued now would wait past 5 s.
    weft.clock.advance(1000);
    await readQueue(weft);
    await expectIngressRefusal(await webhook(weft, bob), 503, "unavailable", /would wait more than 5 s/);
  });
});

describe("backpressure per workspace, and a queue behind a workflow's own limit (a worker runs)", () => {
  let weft: TestPlatform;
  let ada: Tenant;
  let bob: Tenant;
  let cleo: Tenant;

  beforeAll(async () => {
    // Two slots per account: an account running one execution is below its share.
    weft = await startTestPlatform({
      env: { WEFT_WORKER_CONCURRENCY: "4", WEFT_WORKSPACE_SHARE: "0.5", WEFT_MAX_QUEUE_DELAY: String(bound) },
    });
    ada = await deployTenant(weft, "ada@backpressure.test");
    bob = await deployTenant(weft, "bob@backpressure.test");
    cleo = await deployTenant(weft, "cleo@backpressure.test");
  });
  afterAll(async () => {
    await weft.stop();
  });

  it("refuses only the workspace whose backlog its account's share holds back, with 429 and Retry-After", async () => {
    for (let n = 0; n < 5; n++) expect((await webhook(weft, ada, "hold")).status).toBe(202);
    await untilRunning(weft, ada, "hold", 2);
    weft.clock.advance(bound * 1000 + 1);
    await readQueue(weft);

    const backlogged =
      /This workspace's queue is backlogged: an execution queued in it now would wait more than 5 s for a worker/;
    const [hooked, formed, page, ran] = await everySurface(weft, ada);
    await expectIngressRefusal(hooked, 429, "backlogged", backlogged);
    await expectIngressRefusal(formed, 429, "backlogged", backlogged);
    expect(page.status).toBe(429);
    expectRpcRefusal(ran, 429, "TOO_MANY_REQUESTS");
    expect(await executionCount(weft, ada.projectId)).toBe(5);

    expect((await webhook(weft, bob)).status).toBe(202);
    expect((await programmaticForm(weft, bob)).status).toBe(202);
    expect((await hostedForm(weft, bob)).status).toBe(303);
    expect((await run(weft, bob)).status).toBe(200);
  });

  it("refuses nobody for a long queue behind a workflow's `concurrency: 1`, however long it waited", async () => {
    for (let n = 0; n < 12; n++) expect((await webhook(weft, cleo, "serial")).status).toBe(202);
    await untilRunning(weft, cleo, "serial", 1);
    weft.clock.advance(60_000);
    await readQueue(weft);
    expect((await webhook(weft, cleo, "serial")).status).toBe(202);
    expect((await webhook(weft, cleo)).status).toBe(202);
    expect((await run(weft, cleo)).status).toBe(200);
    expect((await webhook(weft, bob)).status).toBe(202);
    expect(await executionsRunning(weft, cleo, "serial")).toBe(1);
  });
});
