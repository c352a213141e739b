import {
  callRpcAs,
  createDatabaseGate,
  createTestIdentity,
  deployManifest,
  executionCount,
  startTestPlatform,
  statementRuns,
  type TestIdentity,
  type TestPlatform,
} from "@weft/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { finalStates } from "../src/engine/execution-state/execution-states.ts";
import { sqlRows } from "../src/engine/sql-rows.ts";
import { createManualTimers } from "../src/shared/timers.ts";

/**
 * On the embedded database, ingress writes a webhook's execution (and `workflows.run` its own)
 * already leased to the process's worker when a claim would have leased it at once, and the worker
 * runs it without a claim.
 */

const config = `import { defineConfig, webhook, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({ name: "short", async run(input: { body: { n: number } }, ctx) {
      return ctx.step("double", () => input.body.n * 2);
    } }),
    workflow({ name: "keys", async run(input: { body: Record<string, unknown> }) {
      return Object.keys(input.body).join(",");
    } }),
    workflow({ name: "lingering", async run(input: { n: number }, ctx) {
      return ctx.step("linger", () => new Promise((resolve) => setTimeout(() => resolve(input.n), 1500)));
    } }),
    workflow({ name: "one-at-a-time", concurrency: 1, async run(input: { n: number }, ctx) {
      return ctx.step("triple", () => input.n * 3);
    } }),
    workflow({ name: "doubled", async run(input: { n: number }, ctx) {
      return ctx.step("double", () => input.n * 2);
    } }),
  ],
  webhooks: [
    webhook({ name: "short", workflow: "short" }),
    webhook({ name: "keys", workflow: "keys" }),
    webhook({ name: "lingering", workflow: "lingering" }),
    webhook({ name: "limited", workflow: "one-at-a-time" }),
  ],
});
`;
const manifest = {
  version: 1 as const,
  workflows: [
    { name: "short" },
    { name: "keys" },
    { name: "lingering" },
    { name: "one-at-a-time", concurrency: 1 },
    { name: "doubled" },
  ],
  webhooks: [
    { name: "short", workflow: "short" },
    { name: "keys", workflow: "keys" },
    { name: "lingering", workflow: "lingering" },
    { name: "limited", workflow: "one-at-a-time" },
  ],
};
const projectId = "prj_01jlocalstarts00000000000a";

let weft: TestPlatform;
const timers = createManualTimers();
const gate = createDatabaseGate();

beforeAll(async () => {
  weft = await startTestPlatform({
    databaseServer: false,
    timers,
    wrapDatabase: gate.wrap,
    // Four slots, two per workspace; and no poll in the test's time, whose claim would blur the counts
    // (nor any other transaction of its own, which the gate would hold).
    env: { WEFT_WORKER_CONCURRENCY: "4" },
    configure: (loaded) => ({ ...loaded, worker: { ...loaded.worker, pollIntervalMs: 3_600_000 } }),
  });
  await deployManifest(weft, projectId, manifest, { configSource: config });
});
afterAll(async () => {
  await weft?.stop();
});

/** Runs of the worker's claim statement so far. */
const claims = () => statementRuns(weft.database.db, "candidates as (");

interface ExecutionRow {
  status: string;
  lease_owner: string | null;
  started_at: Date | string | null;
  output: unknown;
  /** The lease starts no earlier than the execution was created. */
  started_after_created: boolean | null;
  attempt_spans: {
    name: string;
    under_execution: boolean;
    /** It starts no earlier than the execution's span, as a trace draws a child inside its parent. */
    within_execution: boolean;
    attributes: Record<string, unknown>;
  }[];
}

async function executionOf(executionId: string): Promise<ExecutionRow> {
  const [row] = await sqlRows<ExecutionRow>(
    weft.database.db,
    sql`select status, lease_owner, started_at, output, started_at >= created_at as started_after_created,
        (select coalesce(json_agg(json_build_object('name', s.name, 'attributes', s.attributes,
            'under_execution', s.parent_span_id = e.execution_span_id,
            'within_execution', s.start_time >= (select x.start_time from spans x where x.span_id = e.execution_span_id))), '[]')
          from spans s where s.execution_id = e.id and s.kind = 'attempt') as attempt_spans
      from executions e where id = ${executionId}`,
  );
  if (row === undefined) throw new Error(`no execution ${executionId}`);
  return row;
}

async function hook(name: string, body: Record<string, unknown>): Promise<string> {
  const answer = await fetch(`${weft.url}/triggers/webhooks/${projectId}/${name}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(answer.status).toBe(202);
  const [executionId] = ((await answer.json()) as { executionIds: string[] }).executionIds;
  if (executionId === undefined) throw new Error("no execution id");
  return executionId;
}

async function finished(executionId: string): Promise<ExecutionRow> {
  for (let polls = 0; polls < 1000; polls += 1) {
    const row = await executionOf(executionId);
    if ((finalStates as readonly string[]).includes(row.status)) return row;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`execution ${executionId} did not finish`);
}

describe("a webhook's execution on the embedded database", () => {
  it("is claimed while the worker has not seen its project, then written leased and run without a claim", async () => {
    // The sender's key order is not jsonb's: every attempt must see the stored one.
    const body = { zz: 1, b: 2, a: 3 };
    const before = await claims();
    const claimed = await finished(await hook("keys", body));
    expect(claimed).toMatchObject({ status: "succeeded", output: "a,b,zz" });
    expect(claimed.attempt_spans).toHaveLength(1);
    const afterFirst = await claims();
    expect(afterFirst).toBeGreaterThan(before);

    for (let n = 1; n <= 5; n += 1) {
      const started = await finished(await hook("keys", body));
      expect(started).toMatchObject({ status: "succeeded", output: "a,b,zz" });
      expect(started.started_at).not.toBeNull();
      // The attempt span a claim opens, to the letter.
      expect(started.attempt_spans).toEqual(claimed.attempt_spans);
    }
    expect(await claims()).toBe(afterFirst);
  });

  it("is left queued for a claim when its workflow has a concurrency limit", async () => {
    const before = await claims();
    expect((await finished(await hook("limited", { n: 1 }))).status).toBe("succeeded");
    expect(await claims()).toBeGreaterThan(before);
  });

  it("is left queued while its workspace is at its share, and claimed when a slot frees", async () => {
    await finished(await hook("short", { n: 9 }));
    const running = [await hook("lingering", { n: 1 }), await hook("lingering", { n: 2 })];
    for (const executionId of running) expect((await executionOf(executionId)).status).toBe("running");
    const waiting = await hook("short", { n: 3 });
    expect(await executionOf(waiting)).toMatchObject({ status: "queued", lease_owner: null, attempt_spans: [] });
    for (const executionId of running) expect((await finished(executionId)).status).toBe("succeeded");
    expect(await finished(waiting)).toMatchObject({ status: "succeeded", output: 6 });
  });

  it("gives its slot back when the caller's deadline passes before the commit, and leaves nothing", async () => {
    await finished(await hook("short", { n: 4 }));
    const before = await executionCount(weft, projectId);
    gate.close();
    const pending = fetch(`${weft.url}/triggers/webhooks/${projectId}/short`, { method: "POST", body: '{"n":5}' });
    await gate.waiting();
    timers.fireAll();
    expect((await pending).status).toBe(503);
    gate.open();
    await gate.settled();
    expect(await executionCount(weft, projectId)).toBe(before);
    // A slot kept would hold every claim back, and this execution would never run.
    const claimsBefore = await claims();
    expect(await finished(await hook("short", { n: 6 }))).toMatchObject({ status: "succeeded", output: 12 });
    expect(await claims()).toBe(claimsBefore);
  });
});

describe("an execution started by workflows.run on the embedded database", () => {
  let owner: TestIdentity;
  let runsProject: string;

  beforeAll(async () => {
    owner = await createTestIdentity(weft, "local-runs@example.com");
    const created = await callRpcAs(weft, owner, "projects.create", { name: "local-runs" });
    expect(created.status).toBe(200);
    runsProject = (created.json as { id: string }).id;
    await deployManifest(weft, runsProject, manifest, { configSource: config });
  });

  async function run(options: Record<string, unknown>): Promise<string> {
    const answer = await callRpcAs(weft, owner, "workflows.run", {
      projectId: runsProject,
      workflow: "doubled",
      ...options,
    });
    expect(answer.status).toBe(200);
    return (answer.json as { executionId: string }).executionId;
  }

  const audited = async () =>
    (
      await sqlRows<{ n: number }>(
        weft.database.db,
        sql`select count(*)::int as n from audit_events where action = 'execution.started'`,
      )
    )[0]?.n ?? 0;

  it("is claimed while the worker has not seen its project, then written leased and run without a claim", async () => {
    const before = await claims();
    const claimed = await finished(await run({ input: { n: 1 } }));
    expect(claimed).toMatchObject({ status: "succeeded", output: 2 });
    const afterFirst = await claims();
    expect(afterFirst).toBeGreaterThan(before);
    const auditedBefore = await audited();

    for (let n = 2; n <= 4; n += 1) {
      const started = await finished(await run({ input: { n } }));
      expect(started).toMatchObject({ status: "succeeded", output: n * 2, started_after_created: true });
      expect(started.attempt_spans).toEqual(claimed.attempt_spans);
      expect(started.attempt_spans[0]?.within_execution).toBe(true);
    }
    expect(await claims()).toBe(afterFirst);
    // The start is still an audit event, in the transaction that wrote the row.
    expect(await audited()).toBe(auditedBefore + 3);
  });

  it("is started at once with no delay, and left to a claim with a time to live or a concurrency limit", async () => {
    const before = await claims();
    expect((await finished(await run({ input: { n: 5 }, delay: 0 }))).status).toBe("succeeded");
    expect(await claims()).toBe(before);
    expect((await finished(await run({ input: { n: 5 }, ttl: "1m" }))).status).toBe("succeeded");
    const afterTtl = await claims();
    expect(afterTtl).toBeGreaterThan(before);
    const limited = await run({ input: { n: 5 }, workflow: "one-at-a-time" });
    expect(await finished(limited)).toMatchObject({ status: "succeeded", output: 15 });
    expect(await claims()).toBeGreaterThan(afterTtl);
  });

  it("gives its slot back when the idempotency key names an earlier execution", async () => {
    const first = await finished(await run({ input: { n: 7 } }));
    expect(first.status).toBe("succeeded");
    const keyed = await run({ input: { n: 8 }, idempotencyKey: "local-start-key" });
    expect(await finished(keyed)).toMatchObject({ status: "succeeded", output: 16 });
    expect(await run({ input: { n: 8 }, idempotencyKey: "local-start-key" })).toBe(keyed);
    const reused = await callRpcAs(weft, owner, "workflows.run", {
      projectId: runsProject,
      workflow: "doubled",
      input: { n: 10 },
      idempotencyKey: "local-start-key",
    });
    expect(reused.status).toBe(409);
    // A slot kept would hold every claim back, and this execution would never run.
    const claimsBefore = await claims();
    expect(await finished(await run({ input: { n: 9 } }))).toMatchObject({ status: "succeeded", output: 18 });
    expect(await claims()).toBe(claimsBefore);
  });

  it("waits in the queue when delayed, and leaves the next run its start", async () => {
    const delayed = await run({ input: { n: 6 }, delay: "1h" });
    expect(await executionOf(delayed)).toMatchObject({ status: "queued", lease_owner: null, attempt_spans: [] });
    const claimsBefore = await claims();
    expect(await finished(await run({ input: { n: 11 } }))).toMatchObject({ status: "succeeded", output: 22 });
    expect(await claims()).toBe(claimsBefore);
  });
});
