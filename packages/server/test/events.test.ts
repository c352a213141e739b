import { bundleConfig, callRpc, createTestIdentity, signedInTestPlatform, untilExecutionStatus } from "@weft/testing";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * Events end to end through the RPC API of a started platform: a send starts the subscribed
 * workflows (`on`, `if`), is idempotent by id, resumes only the waits it matches (never one that
 * began after it was sent), cancels as `cancelOn` says, and is refused naming the field. Time
 * passes on the platform's manual clock only.
 */

const signedIn = signedInTestPlatform("owner@example.com", {
  configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
});

const source = `
import { defineConfig, workflow } from "@weft/sdk";

export default defineConfig({
  workflows: [
    workflow({ name: "on-created", on: [{ event: "order.created" }], run: async (event: unknown) => event }),
    workflow({
      name: "on-pro",
      on: [{ event: "order.created", if: { path: "$.data.plan", equals: "pro" } }],
      run: async (event: unknown) => event,
    }),
    workflow({ name: "on-shipped", on: [{ event: "order.shipped" }], run: async (event: unknown) => event }),
    workflow({
      name: "debounced",
      on: [{ event: "order.touched" }],
      debounce: { period: "1m" },
      run: async (event: unknown) => event,
    }),
    workflow({
      name: "awaits-payment",
      async run(input: { orderId: string }, ctx) {
        ctx.log.info("waiting for the payment");
        return ctx.waitForEvent("paid", {
          event: "order.paid",
          match: { path: "$.data.orderId", equals: input.orderId },
          timeout: "1h",
        });
      },
    }),
    workflow({
      name: "bad-wait",
      async run(input: { event: string; path: string; equals?: string }, ctx) {
        try {
          const match = { path: input.path, equals: input.equals ?? 1 };
          await ctx.waitForEvent("bad", { event: input.event, match, timeout: "1h" });
          return "waited";
        } catch (error) {
          return \`\${(error as Error).name}: \${(error as Error).message}\`;
        }
      },
    }),
    workflow({
      name: "cancellable",
      cancelOn: [{ event: "order.cancelled", match: { event: "$.data.orderId", input: "$.orderId" } }],
      async run(_input: { orderId: string }, ctx) {
        await ctx.sleep("nap", "7d");
        return "woke";
      },
    }),
    workflow({
      name: "sender-with-id",
      async run(input: { orderId: string; note: string }, ctx) {
        try {
          const sent = await ctx.sendEvent("announce", { name: "order.announced", data: input, id: "ship-" + input.orderId });
          return { eventId: sent.eventId };
        } catch (error) {
          return { error: \`\${(error as Error).name}: \${(error as Error).message}\` };
        }
      },
    }),
    workflow({
      name: "sender",
      async run(input: { orderId: string }, ctx) {
        const sent = await ctx.sendEvent("announce", { name: "order.shipped", data: { orderId: input.orderId } });
        // The execution is replayed after the sleep: the send must come back from its stored step.
        await ctx.sleep("pause", "1m");
        const again = await ctx.step("count", () => 1);
        return { sent, again };
      },
    }),
  ],
});
`;

const manifest = {
  version: 1,
  workflows: [
    { name: "on-created", on: [{ event: "order.created" }] },
    { name: "on-pro", on: [{ event: "order.created", if: { path: "$.data.plan", equals: "pro" } }] },
    { name: "on-shipped", on: [{ event: "order.shipped" }] },
    { name: "debounced", on: [{ event: "order.touched" }], debounce: { periodMs: 60_000 } },
    { name: "awaits-payment" },
    { name: "bad-wait", retries: { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 } },
    {
      name: "cancellable",
      cancelOn: [{ event: "order.cancelled", match: { event: "$.data.orderId", input: "$.orderId" } }],
    },
    { name: "sender" },
    { name: "sender-with-id" },
  ],
};

interface SentJson {
  id: string;
  name: string;
  data: unknown;
  duplicate: boolean;
  executions: { workflow: string; executionId: string }[];
  resumed: number;
  cancelled: number;
  source: { kind: string; name: string | null };
}

interface ExecutionJson {
  id: string;
  workflow: string;
  status: string;
  input: unknown;
  output: unknown;
  trigger: { kind: string; name: string | null };
  tokens: { name: string; status: string }[];
}

let projectId: string;

async function send(input: Record<string, unknown>) {
  return signedIn.call<SentJson>("events.send", { projectId, ...input });
}

async function execution(executionId: string): Promise<ExecutionJson> {
  return (await signedIn.call<ExecutionJson>("workflows.getExecution", { executionId })).json;
}

function until(executionId: string, statuses: string[]): Promise<ExecutionJson> {
  return untilExecutionStatus<ExecutionJson>(signedIn.weft.url, signedIn.identity.credential, executionId, statuses);
}

async function run(workflow: string, input: unknown): Promise<string> {
  const ran = await signedIn.call<{ executionId: string }>("workflows.run", { projectId, workflow, input });
  expect(ran.status).toBe(200);
  return ran.json.executionId;
}

async function executionsOf(workflow: string): Promise<number> {
  const page = await signedIn.call<{ totalCount: number }>("workflows.listExecutions", { projectId, workflow });
  return page.json.totalCount;
}

beforeAll(async () => {
  projectId = (await signedIn.call<{ id: string }>("projects.create", { name: "Orders" })).json.id;
  const deployed = await signedIn.call("deployments.create", {
    projectId,
    manifest,
    bundle: await bundleConfig(source),
  });
  expect(deployed.status).toBe(200);
});

describe("events.send and subscriptions", () => {
  it("starts every subscribed workflow with the event as input; `if` skips those it does not hold for", async () => {
    const free = await send({ name: "order.created", data: { orderId: "o-1", plan: "free" } });
    expect(free.status).toBe(200);
    expect(free.json.executions.map((started) => started.workflow)).toEqual(["on-created"]);
    const pro = await send({ name: "order.created", data: { orderId: "o-2", plan: "pro" } });
    expect(pro.json.executions.map((started) => started.workflow).sort()).toEqual(["on-created", "on-pro"]);
    expect(pro.json.duplicate).toBe(false);

    for (const started of pro.json.executions) {
      const done = await until(started.executionId, ["succeeded", "failed"]);
      expect(done.status).toBe("succeeded");
      expect(done.trigger).toEqual({ kind: "event", name: "order.created" });
      expect(done.output).toEqual({
        id: pro.json.id,
        name: "order.created",
        data: { orderId: "o-2", plan: "pro" },
        sentAt: expect.any(String),
      });
    }
    expect(await executionsOf("on-shipped")).toBe(0);
  });

  it("answers a second send with the same id with the first one's result, starting nothing", async () => {
    const first = await send({ name: "order.created", data: { orderId: "o-3", plan: "pro" }, id: "order-o-3" });
    const before = await executionsOf("on-created");
    const second = await send({ name: "order.created", data: { orderId: "o-3", plan: "pro" }, id: "order-o-3" });
    expect(second.status).toBe(200);
    expect(second.json).toMatchObject({ id: first.json.id, duplicate: true, executions: first.json.executions });
    expect(await executionsOf("on-created")).toBe(before);

    // Past 24 hours the id is free again.
    signedIn.weft.clock.advance(24 * 60 * 60 * 1000 + 1);
    const later = await send({ name: "order.created", data: { orderId: "o-3", plan: "pro" }, id: "order-o-3" });
    expect(later.json.duplicate).toBe(false);
    expect(later.json.id).not.toBe(first.json.id);
  });
});

describe("an id bound to its event's name and data", () => {
  async function events(): Promise<SentJson[]> {
    return (await signedIn.call<{ data: SentJson[] }>("events.list", { projectId, limit: 100 })).json.data;
  }

  it("refuses the id sent again with another name or data as CONFLICT, doing nothing, and still answers a retry", async () => {
    const event = { name: "order.created", data: { orderId: "o-5", plan: "pro" }, id: "order-o-5" };
    const first = await send(event);
    expect(first.json.executions.map((started) => started.workflow).sort()).toEqual(["on-created", "on-pro"]);
    const before = {
      events: await events(),
      created: await executionsOf("on-created"),
      pro: await executionsOf("on-pro"),
      shipped: await executionsOf("on-shipped"),
    };

    for (const reused of [
      { ...event, data: { orderId: "o-5", plan: "free" } },
      { ...event, data: undefined },
      { ...event, name: "order.shipped" },
    ]) {
      const refused = await send(reused);
      expect(refused.status).toBe(409);
      expect(refused.json).toMatchObject({
        code: "CONFLICT",
        message: expect.stringContaining("idempotency key was used with another request"),
      });
    }
    expect(await events()).toEqual(before.events);
    expect(await executionsOf("on-created")).toBe(before.created);
    expect(await executionsOf("on-pro")).toBe(before.pro);
    expect(await executionsOf("on-shipped")).toBe(before.shipped);

    const retry = await send(event);
    expect(retry.status).toBe(200);
    expect(retry.json).toMatchObject({ id: first.json.id, duplicate: true, executions: first.json.executions });
    expect(await executionsOf("on-created")).toBe(before.created);
  });

  it("binds an id a workflow gives to ctx.sendEvent too: another execution's other data is refused, the same answered", async () => {
    const first = await until(await run("sender-with-id", { orderId: "o-6", note: "a" }), ["succeeded", "failed"]);
    const { eventId } = first.output as { eventId: string };
    expect(eventId).toMatch(/^evn_/);
    const announced = async () =>
      (await signedIn.call<{ data: SentJson[] }>("events.list", { projectId, name: "order.announced" })).json.data;
    expect((await announced()).map((sent) => sent.id)).toEqual([eventId]);

    const other = await until(await run("sender-with-id", { orderId: "o-6", note: "b" }), ["succeeded", "failed"]);
    expect(other.output).toEqual({ error: expect.stringMatching(/^EventSendError: .*idempotency key was used/) });
    const same = await until(await run("sender-with-id", { orderId: "o-6", note: "a" }), ["succeeded", "failed"]);
    expect(same.output).toEqual({ eventId });
    expect((await announced()).map((sent) => sent.id)).toEqual([eventId]);
  });
});

describe("events and flow control", () => {
  it("answers the queued execution a debounced workflow's start was folded into", async () => {
    const first = await send({ name: "order.touched", data: { n: 1 } });
    const second = await send({ name: "order.touched", data: { n: 2 } });
    const [started] = first.json.executions;
    expect(started?.workflow).toBe("debounced");
    expect(second.json.executions).toEqual([started]);
    expect(await executionsOf("debounced")).toBe(1);
  });
});

describe("ctx.waitForEvent", () => {
  it("is shown with the event it waits for, and no answer to a token completes it", async () => {
    const waiting = await run("awaits-payment", { orderId: "o-20" });
    await until(waiting, ["waiting"]);
    expect((await execution(waiting)).tokens).toEqual([
      expect.objectContaining({ name: "paid", status: "pending", event: "order.paid" }),
    ]);
    const answered = await signedIn.call("workflows.answerToken", {
      executionId: waiting,
      name: "paid",
      decision: "approve",
    });
    expect(answered.status).toBe(404);
    expect((await execution(waiting)).status).toBe("waiting");
    expect((await send({ name: "order.paid", data: { orderId: "o-20" } })).json.resumed).toBe(1);
    expect((await until(waiting, ["succeeded", "failed"])).output).toMatchObject({ ok: true });
  });

  it("resumes only the execution waiting for the event's order", async () => {
    const first = await run("awaits-payment", { orderId: "o-10" });
    const second = await run("awaits-payment", { orderId: "o-11" });
    await until(first, ["waiting"]);
    await until(second, ["waiting"]);

    const paid = await send({ name: "order.paid", data: { orderId: "o-11", amount: 12 } });
    expect(paid.json.resumed).toBe(1);
    const done = await until(second, ["succeeded", "failed"]);
    expect(done.output).toEqual({
      ok: true,
      event: {
        id: paid.json.id,
        name: "order.paid",
        data: { orderId: "o-11", amount: 12 },
        sentAt: expect.any(String),
      },
    });
    expect((await execution(first)).status).toBe("waiting");

    // The first matching event wins; a second one finds no wait left.
    const again = await send({ name: "order.paid", data: { orderId: "o-11" } });
    expect(again.json.resumed).toBe(0);
    const other = await send({ name: "order.paid", data: { orderId: "o-10" } });
    expect(other.json.resumed).toBe(1);
    expect((await until(first, ["succeeded", "failed"])).output).toMatchObject({
      ok: true,
      event: { id: other.json.id },
    });
  });

  it("is not met by an event sent before it began, and times out on the clock", async () => {
    const early = await send({ name: "order.paid", data: { orderId: "o-20" } });
    expect(early.json.resumed).toBe(0);
    const executionId = await run("awaits-payment", { orderId: "o-20" });
    const waiting = await until(executionId, ["waiting", "succeeded"]);
    expect(waiting.status).toBe("waiting");
    expect(waiting.tokens).toEqual([expect.objectContaining({ name: "paid", status: "pending" })]);

    signedIn.weft.clock.advance(60 * 60 * 1000 + 1000);
    const done = await until(executionId, ["succeeded", "failed"]);
    expect(done.output).toEqual({ ok: false, reason: "timeout" });
    // A timed-out wait is not resumed by a late event.
    expect((await send({ name: "order.paid", data: { orderId: "o-20" } })).json.resumed).toBe(0);
  });
});

describe("ctx.waitForEvent's refusals", () => {
  it.each([
    [{ event: "bad name!", path: "$.data.id" }, "EventWaitError: the event name must start with a letter or digit"],
    [{ event: "order.paid", path: "data.id" }, 'EventWaitError: match.path must be a JSON path like "$.data.orderId"'],
    [{ event: "order.paid", path: "$.data.id", equals: "é".repeat(300) }, "EventWaitError: match.equals is 602 bytes"],
  ])("throws in the workflow for %j, naming what is wrong", async (input, message) => {
    const executionId = await run("bad-wait", input);
    const done = await until(executionId, ["succeeded", "failed"]);
    expect(done.output).toEqual(expect.stringContaining(message));
    expect(done.tokens).toEqual([]);
  });
});

describe("cancelOn", () => {
  it("cancels the unfinished executions whose input matches the event, and no other", async () => {
    const doomed = await run("cancellable", { orderId: "o-30" });
    const spared = await run("cancellable", { orderId: "o-31" });
    await until(doomed, ["sleeping"]);
    await until(spared, ["sleeping"]);

    const cancelled = await send({ name: "order.cancelled", data: { orderId: "o-30" } });
    expect(cancelled.json.cancelled).toBe(1);
    expect((await execution(doomed)).status).toBe("cancelled");
    expect((await execution(spared)).status).toBe("sleeping");
    expect((await send({ name: "order.cancelled", data: { other: "o-31" } })).json.cancelled).toBe(0);
  });
});

describe("ctx.sendEvent", () => {
  it("sends once, starting the subscribed workflows, and replays the stored answer", async () => {
    const executionId = await run("sender", { orderId: "o-40" });
    await until(executionId, ["sleeping"]);
    signedIn.weft.clock.advance(61_000);
    const done = await until(executionId, ["succeeded", "failed"]);
    expect(done.status).toBe("succeeded");
    const output = done.output as { sent: { eventId: string; executions: { workflow: string }[] } };
    expect(output.sent.executions.map((started) => started.workflow)).toEqual(["on-shipped"]);
    expect(await executionsOf("on-shipped")).toBe(1);

    const listed = await signedIn.call<{ data: SentJson[] }>("events.list", { projectId, name: "order.shipped" });
    expect(listed.json.data).toEqual([
      expect.objectContaining({
        id: output.sent.eventId,
        data: { orderId: "o-40" },
        source: { kind: "workflow", name: executionId },
      }),
    ]);
  });
});

describe("events.list", () => {
  it("lists a project's events newest first, page by page", async () => {
    const all = await signedIn.call<{ data: SentJson[] }>("events.list", { projectId, limit: 100 });
    const first = await signedIn.call<{ data: SentJson[]; nextCursor?: string }>("events.list", {
      projectId,
      limit: 2,
    });
    expect(first.json.data.map((event) => event.id)).toEqual(all.json.data.slice(0, 2).map((event) => event.id));
    const next = await signedIn.call<{ data: SentJson[] }>("events.list", {
      projectId,
      limit: 2,
      cursor: first.json.nextCursor,
    });
    expect(next.json.data.map((event) => event.id)).toEqual(all.json.data.slice(2, 4).map((event) => event.id));
  });
});

describe("refusals", () => {
  it.each([
    ["a bad event name", { name: "order created!" }, ["name"]],
    ["data over 256 KiB", { name: "order.created", data: { blob: "x".repeat(300 * 1024) } }, ["data"]],
    ["an id with spaces", { name: "order.created", id: "not an id" }, ["id"]],
  ])("refuses %s with BAD_REQUEST naming the field, storing nothing", async (_what, input, path) => {
    const before = await signedIn.call<{ data: SentJson[] }>("events.list", { projectId, limit: 100 });
    const refused = await send(input);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      code: "BAD_REQUEST",
      data: { issues: expect.arrayContaining([expect.objectContaining({ path })]) },
    });
    expect((await signedIn.call<{ data: SentJson[] }>("events.list", { projectId, limit: 100 })).json).toEqual(
      before.json,
    );
  });

  it("answers NOT_FOUND for an unknown project", async () => {
    const refused = await callRpc(
      signedIn.weft.url,
      "events.send",
      { projectId: "prj_01kdvdna00r1yb5ajdaj0w7jrt", name: "order.created" },
      { token: signedIn.identity.credential },
    );
    expect(refused.status).toBe(404);
  });

  it.each([
    [{ event: "bad name!" }, ["manifest", "workflows", 0, "on", 0, "event"]],
    [
      { event: "order.created", if: { path: "data.plan", equals: "pro" } },
      ["manifest", "workflows", 0, "on", 0, "if", "path"],
    ],
    [
      { event: "order.created", if: { path: "$.data.plan", equals: { plan: "pro" } } },
      ["manifest", "workflows", 0, "on", 0, "if", "equals"],
    ],
  ])("refuses a deployment whose `on` is %j, naming the field", async (subscription, path) => {
    const refused = await signedIn.call("deployments.create", {
      projectId,
      manifest: { version: 1, workflows: [{ name: "bad", on: [subscription] }] },
      bundle: "export default {}",
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      code: "BAD_REQUEST",
      data: { issues: expect.arrayContaining([expect.objectContaining({ path })]) },
    });
  });

  it("refuses a deployment whose cancelOn match is not a JSON path, naming the field", async () => {
    const refused = await signedIn.call("deployments.create", {
      projectId,
      manifest: {
        version: 1,
        workflows: [
          { name: "bad", cancelOn: [{ event: "order.cancelled", match: { event: "$.data.id", input: "$" } }] },
        ],
      },
      bundle: "export default {}",
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      data: {
        issues: expect.arrayContaining([
          expect.objectContaining({ path: ["manifest", "workflows", 0, "cancelOn", 0, "match", "input"] }),
        ]),
      },
    });
  });
});

describe("a webhook that sends an event", () => {
  it("sends the call as the event's data, idempotent by Idempotency-Key, and starts the subscribed workflows", async () => {
    const hookProject = (await signedIn.call<{ id: string }>("projects.create", { name: "Shop hooks" })).json.id;
    const deployed = await signedIn.call("deployments.create", {
      projectId: hookProject,
      manifest: {
        version: 1,
        workflows: [{ name: "on-created", on: [{ event: "order.created" }] }],
        webhooks: [{ name: "shop", event: "order.created", secret: { header: "x-shop-secret", value: "s3cret" } }],
      },
      bundle: await bundleConfig(source),
    });
    expect(deployed.status).toBe(200);
    const url = `${signedIn.weft.url}/triggers/webhooks/${hookProject}/shop`;
    const post = (headers: Record<string, string>, body: unknown = { orderId: "o-50" }) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", "x-shop-secret": "s3cret", ...headers },
        body: JSON.stringify(body),
      });

    expect((await post({ "x-shop-secret": "wrong" })).status).toBe(401);
    const first = await post({ "idempotency-key": "hook-o-50" });
    expect(first.status).toBe(202);
    const sent = (await first.json()) as { eventId: string; executionIds: string[] };
    expect(sent.executionIds).toHaveLength(1);
    const done = await until(sent.executionIds[0] ?? "", ["succeeded", "failed"]);
    expect(done.output).toMatchObject({ id: sent.eventId, name: "order.created", data: { body: { orderId: "o-50" } } });

    // A retried delivery may change a header (a timestamp, a signature): the key is bound to the body.
    const again = await post({ "idempotency-key": "hook-o-50", "x-shop-delivery-attempt": "2" });
    expect(await again.json()).toMatchObject({
      eventId: sent.eventId,
      message: "Event already sent with this Idempotency-Key.",
    });
    const reused = await post({ "idempotency-key": "hook-o-50" }, { orderId: "o-51" });
    expect(reused.status).toBe(409);
    expect(await reused.json()).toMatchObject({ error: "idempotency_key_reused", message: expect.any(String) });
    const listed = await signedIn.call<{ data: SentJson[] }>("events.list", { projectId: hookProject });
    expect(listed.json.data).toEqual([
      expect.objectContaining({ id: sent.eventId, source: { kind: "webhook", name: "shop" } }),
    ]);
  });

  it("refuses a webhook naming both a workflow and an event, or neither, naming the field", async () => {
    for (const hook of [{ name: "both", workflow: "w", event: "a" }, { name: "neither" }]) {
      const refused = await signedIn.call("deployments.create", {
        projectId,
        manifest: { version: 1, workflows: [{ name: "w" }], webhooks: [hook] },
        bundle: "export default {}",
      });
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({
        data: {
          issues: expect.arrayContaining([expect.objectContaining({ path: ["manifest", "webhooks", 0, "workflow"] })]),
        },
      });
    }
  });
});

/** The 30 days around the platform's clock (a usage range is at most 400 days). */
function usageRange() {
  const now = signedIn.weft.clock.now().getTime();
  const day = 24 * 60 * 60 * 1000;
  return { from: new Date(now - 30 * day).toISOString(), to: new Date(now + day).toISOString() };
}

describe("usage", () => {
  it("counts every event sent, with its data's bytes", async () => {
    const before = await signedIn.call<{ totals: { events: number; bytes: number } }>("billing.getUsage", {
      workspaceId: signedIn.identity.personalWorkspaceId,
      ...usageRange(),
      groupBy: "project",
    });
    expect(before.status).toBe(200);
    await send({ name: "order.metered", data: { n: "x".repeat(1000) } });
    const after = await signedIn.call<{ totals: { events: number; bytes: number } }>("billing.getUsage", {
      workspaceId: signedIn.identity.personalWorkspaceId,
      ...usageRange(),
      groupBy: "project",
    });
    expect(after.json.totals.events).toBe(before.json.totals.events + 1);
    expect(after.json.totals.bytes - before.json.totals.bytes).toBe(JSON.stringify({ n: "x".repeat(1000) }).length);
    // Every event this workspace sent is counted, whichever way it came (API, workflow, webhook).
    const projects = await signedIn.call<{ results: { id: string }[] }>("projects.list", {});
    let listed = 0;
    for (const project of projects.json.results) {
      const page = await signedIn.call<{ data: unknown[] }>("events.list", { projectId: project.id, limit: 100 });
      listed += page.json.data.length;
    }
    expect(after.json.totals.events).toBe(listed);
  });
});

describe("retention", () => {
  it("deletes events once they are older than the project's execution retention", async () => {
    const kept = await send({ name: "order.noted", data: { n: 1 } });
    expect(kept.status).toBe(200);
    const jobs = signedIn.weft.platform.periodicJobs;
    if (jobs === undefined) throw new Error("the test platform runs the periodic jobs");
    const names = async () => {
      // A credential valid at the clock's new time.
      const owner = await createTestIdentity(signedIn.weft, "owner@example.com");
      const listed = await callRpc(
        signedIn.weft.url,
        "events.list",
        { projectId, limit: 100 },
        { token: owner.credential },
      );
      return (listed.json as { data: SentJson[] }).data.map((event) => event.name);
    };
    signedIn.weft.clock.advance(29 * 24 * 60 * 60 * 1000);
    await jobs.pruneHistory();
    expect(await names()).toContain("order.noted");
    signedIn.weft.clock.advance(2 * 24 * 60 * 60 * 1000);
    expect((await jobs.pruneHistory()).events).toBeGreaterThan(0);
    expect(await names()).toEqual([]);
  });
});
