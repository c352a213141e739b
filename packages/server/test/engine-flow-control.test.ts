import { createTestDatabase, deployTestProject, enqueueTestExecution, type TestDatabase } from "@weft/testing";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { executions } from "../src/db/schema/index.ts";
import { createDeployment } from "../src/deployments/create-deployment.ts";
import { createEnqueueBatcher } from "../src/engine/enqueue-batcher.ts";
import { enqueueExecution } from "../src/engine/enqueue-execution.ts";
import {
  type ClaimedExecution,
  claim,
  keysPerClaim,
  limitedGroupsWalked,
} from "../src/engine/execution-state/claim.ts";
import { createManualClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";
import { listExecutions } from "../src/workflows/read-executions.ts";

const clock = createManualClock();
const deps = { clock, ids: createIdGenerator(clock) };
let database: TestDatabase;

const manifest = {
  version: 1,
  workflows: [
    { name: "per-customer", concurrency: 2, concurrencyKey: "$.customer" },
    { name: "ranked", concurrency: 1, priority: "$.p" },
    { name: "urgent", priority: 10 },
    { name: "routine", priority: 0 },
    { name: "later", priority: -5 },
    { name: "plain" },
    { name: "debounced", debounce: { periodMs: 1000, key: "$.user" } },
    { name: "throttled", throttle: { limit: 10, periodMs: 1000 } },
    { name: "limited", rateLimit: { limit: 3, periodMs: 60_000, key: "$.customer" } },
  ],
};

const deployments = new Map<string, string>();

async function deployed(projectId: string, owner?: string): Promise<string> {
  const known = deployments.get(projectId);
  if (known !== undefined) return known;
  const id = await deployTestProject(database.db, deps, {
    projectId,
    manifest,
    ...(owner === undefined ? {} : { owner }),
  });
  deployments.set(projectId, id);
  return id;
}

async function run(projectId: string, name: string, input: unknown): Promise<string> {
  return enqueueTestExecution(database.db, deps, {
    projectId,
    deploymentId: await deployed(projectId),
    workflow: name,
    input,
  });
}

/** A worker's claim, as the claim loop makes it, at the manual clock's time. */
async function claimNow(workerId: string, limit = 50, workspaceSlots = limit): Promise<ClaimedExecution[]> {
  return (await claim(database.db, { workerId, now: clock.now(), leaseMs: 60_000, limit, workspaceSlots })).executions;
}

/** Ends executions as the worker's end statement would leave them, for what the claim reads. */
async function succeed(ids: readonly string[]): Promise<void> {
  for (const id of ids) {
    await database.db
      .update(executions)
      .set({ status: "succeeded", finishedAt: clock.now(), leaseOwner: null, leaseExpiresAt: null })
      .where(eq(executions.id, id));
  }
}

async function runningOf(projectId: string, name: string) {
  return database.db
    .select({ id: executions.id, input: executions.input })
    .from(executions)
    .where(and(eq(executions.projectId, projectId), eq(executions.workflow, name), eq(executions.status, "running")));
}

beforeAll(async () => {
  database = await createTestDatabase();
});
// No execution of an earlier test: a claim reads every project's queue.
beforeEach(async () => {
  await database.db.delete(executions);
});
afterAll(async () => {
  await database?.destroy();
});

describe("keyed concurrency", () => {
  it("runs at most the limit per key: 2 for each of 3 customers, 6 in all", async () => {
    const projectId = "prj_keyed";
    for (let n = 0; n < 5; n += 1) {
      for (const customer of ["acme", "globex", "initech"]) await run(projectId, "per-customer", { customer, n });
    }
    const first = await claimNow("wrk_keyed");
    expect(first).toHaveLength(6);
    const perCustomer = (rows: { input: unknown }[]) => {
      const counts = new Map<string, number>();
      for (const row of rows) {
        const customer = (row.input as { customer: string }).customer;
        counts.set(customer, (counts.get(customer) ?? 0) + 1);
      }
      return Object.fromEntries(counts);
    };
    expect(perCustomer(first)).toEqual({ acme: 2, globex: 2, initech: 2 });
    // Each key's oldest first.
    expect(
      first
        .filter((row) => (row.input as { customer: string }).customer === "acme")
        .map((row) => row.input)
        .sort((a, b) => (a as { n: number }).n - (b as { n: number }).n),
    ).toEqual([
      { customer: "acme", n: 0 },
      { customer: "acme", n: 1 },
    ]);
    expect(await claimNow("wrk_keyed")).toHaveLength(0);
    // Another worker sees the same limit.
    expect(await claimNow("wrk_keyed_other")).toHaveLength(0);
    const acme = first.find((row) => (row.input as { customer: string }).customer === "acme");
    await succeed([acme?.id ?? ""]);
    const next = await claimNow("wrk_keyed");
    expect(next.map((row) => row.input)).toEqual([{ customer: "acme", n: 2 }]);
    expect(perCustomer(await runningOf(projectId, "per-customer"))).toEqual({ acme: 2, globex: 2, initech: 2 });
  });

  it("reaches every key in turn when more keys wait than one claim looks at", async () => {
    const projectId = "prj_keyed_many";
    const customers = Array.from({ length: keysPerClaim + 18 }, (_, n) => `c${n}`);
    for (const customer of customers) {
      for (let n = 0; n < 3; n += 1) await run(projectId, "per-customer", { customer, n });
    }
    const running = new Map<string, number>();
    for (let round = 0; round < 20 && running.size < customers.length; round += 1) {
      for (const row of await claimNow("wrk_keyed_many", 100)) {
        const customer = (row.input as { customer: string }).customer;
        running.set(customer, (running.get(customer) ?? 0) + 1);
      }
    }
    expect(running.size).toBe(customers.length);
    expect(Math.max(...running.values())).toBeLessThanOrEqual(2);
  });

  it("stores a key's value as JSON text, so a number and its string are two keys", async () => {
    const projectId = "prj_keyed_json";
    await run(projectId, "per-customer", { customer: 1 });
    await run(projectId, "per-customer", { customer: "1" });
    await run(projectId, "per-customer", {});
    const keys = await database.db
      .select({ key: executions.concurrencyKey })
      .from(executions)
      .where(eq(executions.projectId, projectId));
    expect(keys.map((row) => row.key).sort()).toEqual(['"1"', "1", "null"]);
  });
});

describe("the groups of limited workflows", () => {
  it("reaches a due group behind more groups not yet due than one claim walks", async () => {
    const projectId = "prj_many_groups";
    const template = await run(projectId, "ranked", { p: 0 });
    // As many groups again, each of one execution due in an hour, sorting before the due group.
    await database.db.execute(sql`insert into executions (id, project_id, deployment_id, workflow, status, input,
        attempt, max_attempts, retry_min_delay_ms, retry_max_delay_ms, concurrency_limit, priority, run_at,
        trigger_kind, trace_id, execution_span_id, logs, created_at)
      select 'exe_group' || lpad(g::text, 17, '0'), project_id, deployment_id, 'a-later-' || lpad(g::text, 4, '0'),
        status, input, attempt, max_attempts, retry_min_delay_ms, retry_max_delay_ms, concurrency_limit, priority,
        run_at + interval '1 hour', trigger_kind, md5('group' || g), substr(md5('span' || g), 1, 16), logs, created_at
      from executions, generate_series(1, ${limitedGroupsWalked + 5}::int) g where id = ${template}`);
    const claimed: string[] = [];
    for (let round = 0; round < 3 && claimed.length === 0; round += 1) {
      claimed.push(...(await claimNow("wrk_many_groups")).map((row) => row.id));
    }
    expect(claimed).toEqual([template]);
  });
});

describe("priority", () => {
  it("claims the queued executions of a workflow highest priority first, then oldest first", async () => {
    const projectId = "prj_ranked";
    const priorities = [1, 5, 3, -2, 5, 0];
    for (const [n, p] of priorities.entries()) await run(projectId, "ranked", { n, p });
    const order: unknown[] = [];
    for (let round = 0; round < priorities.length; round += 1) {
      const claimed = await claimNow("wrk_ranked");
      expect(claimed).toHaveLength(1);
      order.push(claimed[0]?.input);
      await succeed(claimed.map((row) => row.id));
    }
    expect(order).toEqual([
      { n: 1, p: 5 },
      { n: 4, p: 5 },
      { n: 2, p: 3 },
      { n: 0, p: 1 },
      { n: 5, p: 0 },
      { n: 3, p: -2 },
    ]);
  });

  it("puts a workspace's higher-priority workflow first, and never past the account's share", async () => {
    const projectId = "prj_priority_mine";
    const otherProject = "prj_priority_theirs";
    await deployed(projectId, "mine@example.com");
    await deployed(otherProject, "theirs@example.com");
    const routine = [];
    for (let n = 0; n < 3; n += 1) routine.push(await run(projectId, "routine", { n }));
    clock.advance(1000);
    const urgent = [];
    for (let n = 0; n < 3; n += 1) urgent.push(await run(projectId, "urgent", { n }));
    const theirs = await run(otherProject, "routine", { n: 0 });
    // A share of two slots: the first two of this workspace are its urgent ones, and the other
    // workspace's routine execution is claimed beside them.
    const claimed = await claimNow("wrk_priority", 10, 2);
    expect(claimed.map((row) => row.id).sort()).toEqual([urgent[0], urgent[1], theirs].sort());
    await succeed(claimed.map((row) => row.id));
    const next = await claimNow("wrk_priority", 10, 2);
    expect(next.map((row) => row.id)).toEqual([urgent[2], routine[0]]);
  });
  it("orders plain workflows as priority 0 among the workspace's others: after higher, before lower", async () => {
    const projectId = "prj_priority_plain";
    const later = await run(projectId, "later", { n: 0 });
    const plain = [];
    for (let n = 0; n < 2; n += 1) plain.push(await run(projectId, "plain", { n }));
    clock.advance(1000);
    const urgent = [];
    for (let n = 0; n < 2; n += 1) urgent.push(await run(projectId, "urgent", { n }));
    const order: string[] = [];
    for (let round = 0; round < 5; round += 1) {
      const claimed = await claimNow("wrk_priority_plain", 1);
      expect(claimed).toHaveLength(1);
      order.push(claimed[0]?.id ?? "");
      await succeed(claimed.map((row) => row.id));
    }
    expect(order).toEqual([...urgent, ...plain, later]);
  });

  it("leaves the slots a higher priority cannot take, at its limit, to the plain work behind it", async () => {
    const projectId = "prj_priority_held";
    const plain = [];
    for (let n = 0; n < 2; n += 1) plain.push(await run(projectId, "plain", { n }));
    const ranked = [];
    for (let n = 0; n < 2; n += 1) ranked.push(await run(projectId, "ranked", { n, p: 5 }));
    const claimed = await claimNow("wrk_priority_held", 10);
    expect(claimed.map((row) => row.id).sort()).toEqual([ranked[0], ...plain].sort());
  });
});

describe("debounce", () => {
  it("turns a burst of 100 triggers into one execution, with the last input, a period after the last", async () => {
    const projectId = "prj_debounce";
    const ids = new Set<string>();
    for (let n = 0; n < 100; n += 1) {
      ids.add(await run(projectId, "debounced", { user: "ada", n }));
      clock.advance(10);
    }
    const lastTrigger = clock.now().getTime() - 10;
    expect(ids.size).toBe(1);
    const rows = await database.db.select().from(executions).where(eq(executions.projectId, projectId));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "queued", input: { user: "ada", n: 99 } });
    expect(rows[0]?.runAt.getTime()).toBe(lastTrigger + 1000);
    // Another key has its own execution.
    const grace = await run(projectId, "debounced", { user: "grace", n: 0 });
    expect(ids.has(grace)).toBe(false);
    expect(await claimNow("wrk_debounce")).toHaveLength(0);
    clock.advance(990);
    const claimed = await claimNow("wrk_debounce");
    expect(claimed.map((row) => row.input)).toEqual([{ user: "ada", n: 99 }]);
    // Once running, the next trigger starts a new execution.
    const after = await run(projectId, "debounced", { user: "ada", n: 100 });
    expect(after).not.toBe(claimed[0]?.id);
  });

  it("leaves a started execution queued again for its retry alone, beside the next burst's", async () => {
    const projectId = "prj_debounce_retry";
    const first = await run(projectId, "debounced", { user: "ada", n: 1 });
    clock.advance(1000);
    expect((await claimNow("wrk_debounce_retry")).map((row) => row.id)).toEqual([first]);
    const next = await run(projectId, "debounced", { user: "ada", n: 2 });
    expect(next).not.toBe(first);
    // The first attempt fails and is queued again, as the retry transition leaves it.
    await database.db
      .update(executions)
      .set({ status: "queued", leaseOwner: null, leaseExpiresAt: null, attempt: 2 })
      .where(eq(executions.id, first));
    expect(await run(projectId, "debounced", { user: "ada", n: 3 })).toBe(next);
    const rows = await database.db.select().from(executions).where(eq(executions.projectId, projectId));
    expect(Object.fromEntries(rows.map((row) => [row.id, row.input]))).toEqual({
      [first]: { user: "ada", n: 1 },
      [next]: { user: "ada", n: 3 },
    });
  });

  it("folds a burst that arrives in one group commit into one execution too", async () => {
    const projectId = "prj_debounce_batch";
    const deploymentId = await deployed(projectId);
    const batcher = createEnqueueBatcher({ db: database.db, clock, ids: deps.ids });
    const workflowManifest = { name: "debounced", debounce: { periodMs: 1000, key: "$.user" } };
    const ids = await Promise.all(
      Array.from({ length: 100 }, (_, n) =>
        batcher.enqueue({
          request: {
            projectId,
            deploymentId,
            workflow: "debounced",
            input: { user: "ada", n },
            trigger: { kind: "webhook", name: "w" },
          },
          workflow: workflowManifest,
        }),
      ),
    );
    expect(new Set(ids).size).toBe(1);
    const rows = await database.db.select().from(executions).where(eq(executions.projectId, projectId));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.input).toEqual({ user: "ada", n: 99 });
  });
});

describe("a time to live under flow control", () => {
  it("counts from when a throttled or debounced execution is due, not from its trigger", async () => {
    const projectId = "prj_flow_ttl";
    const ttlMs = 60_000;
    const ttlOf = async (id: string) => {
      const [row] = await database.db
        .select({ runAt: executions.runAt, expiresAt: executions.expiresAt })
        .from(executions)
        .where(eq(executions.id, id));
      return (row?.expiresAt?.getTime() ?? 0) - (row?.runAt.getTime() ?? 0);
    };
    const deploymentId = await deployed(projectId);
    const enqueue = (workflow: string, input: unknown) =>
      enqueueTestExecution(database.db, deps, { projectId, deploymentId, workflow, input, ttlMs });
    const throttled: string[] = [];
    for (let n = 0; n < 15; n += 1) throttled.push(await enqueue("throttled", { n }));
    for (const id of throttled) expect(await ttlOf(id)).toBe(ttlMs);

    const debounced = await enqueue("debounced", { user: "ada" });
    clock.advance(500);
    expect(await enqueue("debounced", { user: "ada" })).toBe(debounced);
    expect(await ttlOf(debounced)).toBe(ttlMs);
  });
});

describe("throttle", () => {
  it("delays starts beyond 10 a second, so they start at 10 a second on the clock", async () => {
    const projectId = "prj_throttle";
    const startedAt = clock.now().getTime();
    for (let n = 0; n < 100; n += 1) await run(projectId, "throttled", { n });
    // All are queued, none dropped.
    const queued = await database.db.select().from(executions).where(eq(executions.projectId, projectId));
    expect(queued).toHaveLength(100);
    const starts: number[] = [];
    while (starts.length < 100 && clock.now().getTime() - startedAt < 20_000) {
      const claimed = await claimNow("wrk_throttle", 100);
      for (const _ of claimed) starts.push(clock.now().getTime());
      await succeed(claimed.map((row) => row.id));
      clock.advance(25);
    }
    expect(starts).toHaveLength(100);
    const first = starts[0] ?? 0;
    const last = starts[starts.length - 1] ?? 0;
    const rate = (starts.length - 1) / ((last - first) / 1000);
    expect(Math.abs(rate - 10) / 10).toBeLessThan(0.1);
    // No second holds more than 10 starts.
    for (const start of starts) {
      expect(starts.filter((other) => other >= start && other < start + 1000).length).toBeLessThanOrEqual(10);
    }
  });
});

describe("rate limit", () => {
  it("skips starts beyond the limit, records them as cancelled and says so", async () => {
    const projectId = "prj_rate";
    const deploymentId = await deployed(projectId);
    const outcomes = [];
    for (let n = 0; n < 5; n += 1) {
      outcomes.push(
        valueOrThrow(
          await database.db.transaction((tx) =>
            enqueueExecution(tx, deps, {
              projectId,
              deploymentId,
              workflow: "limited",
              input: { customer: "acme", n },
              trigger: { kind: "api" },
            }),
          ),
        ),
      );
    }
    expect(outcomes.map((outcome) => outcome.flowControl ?? "started")).toEqual([
      "started",
      "started",
      "started",
      "skipped",
      "skipped",
    ]);
    // Another key has its own limit.
    const other = await run(projectId, "limited", { customer: "globex" });
    expect((await database.db.select().from(executions).where(eq(executions.id, other)))[0]?.status).toBe("queued");
    const listed = await listExecutions(database.db, {
      projectId,
      status: ["cancelled"],
      page: { direction: "forward", size: 10, cursor: undefined },
    });
    expect(listed.rows.map((item) => item.id)).toEqual(outcomes.slice(3).map((outcome) => outcome.executionId));
    const [skipped] = await database.db
      .select()
      .from(executions)
      .where(eq(executions.id, outcomes[3]?.executionId ?? ""));
    expect(skipped).toMatchObject({ status: "cancelled", error: { name: "RateLimitedError" } });
    expect(skipped?.finishedAt).not.toBeNull();
    // One period over the limit (60 s / 3) lets one more through.
    clock.advance(20_000);
    const later = await run(projectId, "limited", { customer: "acme", n: 5 });
    expect((await database.db.select().from(executions).where(eq(executions.id, later)))[0]?.status).toBe("queued");
    // The skipped starts moved no window: the next one waits for its turn again.
    const refused = await run(projectId, "limited", { customer: "acme", n: 6 });
    expect((await database.db.select().from(executions).where(eq(executions.id, refused)))[0]?.status).toBe(
      "cancelled",
    );
  });
});

describe("refusals at deploy", () => {
  const refusals: [string, Record<string, unknown>, string][] = [
    ["concurrency limit out of range", { concurrency: 0 }, "workflows.0.concurrency"],
    ["concurrency key not a JSON path", { concurrency: 2, concurrencyKey: "customer" }, "workflows.0.concurrencyKey"],
    ["concurrency key without a limit", { concurrencyKey: "$.customer" }, "workflows.0.concurrencyKey"],
    ["throttle limit out of range", { throttle: { limit: 0, periodMs: 1000 } }, "workflows.0.throttle.limit"],
    ["throttle period out of range", { throttle: { limit: 1, periodMs: 0 } }, "workflows.0.throttle.periodMs"],
    ["throttle key not a JSON path", { throttle: { limit: 1, periodMs: 10, key: "$..x" } }, "workflows.0.throttle.key"],
    ["rate limit out of range", { rateLimit: { limit: 10_001, periodMs: 1000 } }, "workflows.0.rateLimit.limit"],
    [
      "rate limit key not a JSON path",
      { rateLimit: { limit: 1, periodMs: 10, key: "x" } },
      "workflows.0.rateLimit.key",
    ],
    ["debounce period too long", { debounce: { periodMs: 8 * 86_400_000 } }, "workflows.0.debounce.periodMs"],
    ["debounce key not a JSON path", { debounce: { periodMs: 10, key: "$[x]" } }, "workflows.0.debounce.key"],
    ["priority out of range", { priority: 1001 }, "workflows.0.priority"],
    ["priority neither a number nor a JSON path", { priority: "high" }, "workflows.0.priority"],
  ];
  for (const [what, options, path] of refusals) {
    it(`refuses a ${what}, naming ${path}, and stores nothing`, async () => {
      const refused = await createDeployment(database.db, deps, {
        projectId: "prj_keyed",
        manifest: { version: 1, workflows: [{ name: "w", ...options }] },
        bundle: "export default {};",
      });
      expect(refused.ok).toBe(false);
      if (!refused.ok && refused.failure.kind === "invalid") {
        expect(refused.failure.issues.map((issue) => issue.path)).toContain(path);
      } else {
        expect.fail("expected an invalid manifest");
      }
    });
  }
});
