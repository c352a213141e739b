import { type EngineHarness, startEngineHarness } from "@weft/testing";
import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executionSteps, executions, spans, waitTokens } from "../src/db/schema/index.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";
import { completeWaitToken } from "../src/wait-tokens/complete-wait-token.ts";
import { cancelExecution } from "../src/workflows/cancel-execution.ts";

/**
 * Child workflows (`ctx.invoke`, `ctx.start`) through a deployed project on a real worker: the
 * parent waits without a worker slot, the child's end resumes it, and a replay starts no child and
 * runs no stored step again (on PGlite, and on PostgreSQL with WEFT_TEST_DATABASE_URL).
 */

let engine: EngineHarness;
const project = "prj_children";

const source = `
import { defineConfig, workflow } from "@weft/sdk";

const double = workflow({
  name: "double",
  input: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  async run(input: { n: number }, ctx) {
    return ctx.step("double", () => input.n * 2);
  },
});

export default defineConfig({
  workflows: [
    double,
    workflow({
      name: "parent",
      async run(input: { n: number }, ctx) {
        const before = await ctx.step("before", () => Math.random());
        const doubled = await ctx.invoke("child", double, { n: input.n });
        return { before, doubled };
      },
    }),
    workflow({
      name: "broken",
      retries: { maxAttempts: 1 },
      async run() {
        throw new Error("the child broke");
      },
    }),
    workflow({
      name: "calls-broken",
      async run(_input: unknown, ctx) {
        try {
          await ctx.invoke("child", "broken", {});
          return "no error";
        } catch (error) {
          return { name: (error as Error).name, message: (error as Error).message };
        }
      },
    }),
    workflow({
      name: "refused",
      async run(input: { case: string }, ctx) {
        try {
          if (input.case === "unknown") await ctx.invoke("child", "no-such-workflow", {});
          if (input.case === "input") await ctx.invoke("child", "double", { n: "two" });
          if (input.case === "delay") await ctx.start("child", "double", { n: 1 }, { delay: "400d" });
          if (input.case === "ttl") await ctx.start("child", "double", { n: 1 }, { ttl: "10ms" });
          if (input.case === "tags") await ctx.start("child", "double", { n: 1 }, { tags: Array.from({ length: 11 }, (_, i) => "t" + i) });
          return "no error";
        } catch (error) {
          return { name: (error as Error).name, message: (error as Error).message };
        }
      },
    }),
    workflow({
      name: "waits-long",
      async run(_input: unknown, ctx) {
        await ctx.sleep("long", "1d");
        return "woke";
      },
    }),
    workflow({
      name: "cascade",
      async run(_input: unknown, ctx) {
        const started = await ctx.start("background", "waits-long", {});
        await ctx.step("started", () => started);
        return ctx.invoke("child", "waits-long", {});
      },
    }),
    workflow({
      name: "slow",
      async run(_input: unknown, ctx) {
        await ctx.step("slow", () => new Promise((resolve) => setTimeout(resolve, 1500)));
        return ctx.step("after", () => "not cancelled");
      },
    }),
    workflow({
      name: "calls-slow",
      async run(_input: unknown, ctx) {
        return ctx.invoke("child", "slow", {});
      },
    }),
    workflow({
      name: "starter",
      async run(_input: unknown, ctx) {
        const first = await ctx.start("child", double, { n: 21 }, { tags: ["from-start"] });
        const again = await ctx.step("random", () => Math.random());
        if (ctx.execution.attempt === 1) throw new Error("retry once");
        return { first, again };
      },
      retries: { maxAttempts: 2, minDelay: 0, maxDelay: 0 },
    }),
    workflow({
      name: "delayed",
      async run(_input: unknown, ctx) {
        const late = await ctx.start("late", double, { n: 1 }, { delay: "10s", ttl: "1s" });
        const onTime = await ctx.start("on-time", double, { n: 2 }, { delay: "10s", ttl: "1m" });
        try {
          await ctx.invoke("invoked", double, { n: 3 }, { delay: "10s", ttl: "1s" });
          return { late, onTime, invoked: "no error" };
        } catch (error) {
          return { late, onTime, invoked: (error as Error).message };
        }
      },
    }),
    workflow({
      name: "many",
      async run(input: { count: number; bad?: boolean }, ctx) {
        const before = await ctx.step("before", () => Math.random());
        const inputs = Array.from({ length: input.count }, (_, n) => (input.bad && n === 2 ? { n: "two" } : { n }));
        try {
          const doubled = await ctx.invokeMany("double", double, inputs as { n: number }[]);
          return { before, doubled };
        } catch (error) {
          return { before, error: { name: (error as Error).name, message: (error as Error).message } };
        }
      },
    }),
    workflow({
      name: "fan-out",
      async run(input: { count: number }, ctx) {
        const results = await Promise.all([
          ...Array.from({ length: input.count }, (_, i) => ctx.invoke("child-" + i, double, { n: i })),
          ctx.step("beside", () => Math.random()),
        ]);
        return results;
      },
    }),
  ],
});
`;

const manifest = {
  version: 1,
  workflows: [
    { name: "double", inputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] } },
    { name: "parent" },
    { name: "broken", retries: { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 } },
    { name: "calls-broken" },
    { name: "refused" },
    { name: "waits-long" },
    { name: "cascade" },
    { name: "slow" },
    { name: "calls-slow" },
    { name: "starter", retries: { maxAttempts: 2, minDelayMs: 0, maxDelayMs: 0 } },
    { name: "delayed" },
    { name: "many" },
    { name: "fan-out" },
  ],
};

beforeAll(async () => {
  engine = await startEngineHarness({ concurrency: 8 });
  await engine.deploy(project, source, manifest);
});

afterAll(async () => {
  await engine.stop();
});

const ended = (row: { status: string }) => ["succeeded", "failed", "cancelled", "expired"].includes(row.status);

async function childrenOf(parentId: string) {
  return engine.database.db
    .select({ id: executions.id, workflow: executions.workflow, status: executions.status, tags: executions.tags })
    .from(executions)
    .where(eq(executions.parentExecutionId, parentId));
}

describe("ctx.invoke", () => {
  it("returns the child's output; the parent waited without its worker, and the child joins its trace", async () => {
    const id = await engine.run(project, "parent", { n: 21 });
    const done = await engine.waitFor(id, ended);
    expect(done.status).toBe("succeeded");
    const output = done.output as { before: number; doubled: number };
    expect(output.doubled).toBe(42);
    const [child] = await childrenOf(id);
    expect(child).toMatchObject({ workflow: "double", status: "succeeded" });
    const childRow = await engine.execution(child?.id ?? "");
    expect(childRow.traceId).toBe(done.traceId);
    // The parent's stored step was replayed, not run again, when the child's end resumed it.
    const [before] = await engine.database.db
      .select()
      .from(executionSteps)
      .where(and(eq(executionSteps.executionId, id), eq(executionSteps.name, "before")));
    expect(before?.result.value).toBe(output.before);
    // A claim may take the child as soon as it is started, and it may end before the parent reaches
    // its wait: the wait then answers the child's end at once, and the first attempt runs to the end.
    // Otherwise the first attempt let go of its worker at the wait, and one resumption, made due by
    // the child's end, ran the rest. The first attempt's status says which: each case is checked whole.
    const attempts = await engine.database.db
      .select({ name: spans.name, code: spans.statusCode, message: spans.statusMessage })
      .from(spans)
      .where(and(eq(spans.executionId, id), eq(spans.kind, "attempt")));
    const first = attempts.find((span) => span.name === "attempt 1");
    const waited = first?.message === "waiting (child)";
    expect(first).toEqual({ name: "attempt 1", code: "ok", message: waited ? "waiting (child)" : null });
    const rest = attempts.filter((span) => span !== first);
    expect(rest).toEqual(waited ? [{ name: "attempt 1 (resumed)", code: "ok", message: null }] : []);
    // The child's trigger span hangs under the parent's invoke span, in the parent's trace.
    const [invokeSpan] = await engine.database.db
      .select()
      .from(spans)
      .where(and(eq(spans.executionId, id), eq(spans.name, "invoke child")));
    const [trigger] = await engine.database.db
      .select()
      .from(spans)
      .where(and(eq(spans.executionId, child?.id ?? ""), eq(spans.kind, "trigger")));
    expect(trigger?.parentSpanId).toBe(invokeSpan?.spanId);
    expect(trigger?.traceId).toBe(done.traceId);
    const [wait] = await engine.database.db.select().from(waitTokens).where(eq(waitTokens.executionId, id));
    expect(wait).toMatchObject({ name: "child", status: "completed", childExecutionId: child?.id });
  });

  it("throws in the parent an error naming the failed child's execution", async () => {
    const id = await engine.run(project, "calls-broken", {});
    const done = await engine.waitFor(id, ended);
    const [child] = await childrenOf(id);
    expect(child?.status).toBe("failed");
    expect(done.output).toEqual({
      name: "ChildWorkflowError",
      message: `the child execution ${child?.id} of "broken" (invoked as "child") failed: Error: the child broke`,
    });
  });

  it.each([
    ["unknown", 'workflow: the deployment defines no workflow "no-such-workflow"'],
    ["input", 'input: the input does not match the schema of "double"'],
    ["delay", "options.delay must be between"],
    ["ttl", "options.ttl must be between"],
    ["tags", "options.tags"],
  ])("refuses a start with a bad %s, naming the field, and starts nothing", async (which, message) => {
    const id = await engine.run(project, "refused", { case: which });
    const done = await engine.waitFor(id, ended);
    expect(done.status).toBe("succeeded");
    expect(done.output).toMatchObject({ name: "ChildWorkflowStartError" });
    expect((done.output as { message: string }).message).toContain(message);
    expect(await childrenOf(id)).toEqual([]);
  });
});

describe("ctx.start", () => {
  it("returns the child's id, the same one when the attempt is replayed, and starts one child", async () => {
    const id = await engine.run(project, "starter", {});
    const done = await engine.waitFor(id, ended);
    expect(done.status).toBe("succeeded");
    const children = await childrenOf(id);
    expect(children).toHaveLength(1);
    expect((done.output as { first: string }).first).toBe(children[0]?.id);
    expect(children[0]?.tags).toEqual(["from-start"]);
    const child = await engine.waitFor(children[0]?.id ?? "", ended);
    expect(child.output).toBe(42);
    expect(child.parentExecutionId).toBe(id);
  });
});

describe("cancelling a parent", () => {
  it("cancels its unfinished children, started and invoked", async () => {
    const id = await engine.run(project, "cascade", {});
    await engine.waitFor(id, (row) => row.status === "waiting");
    const children = await childrenOf(id);
    expect(children.map((child) => child.workflow)).toEqual(["waits-long", "waits-long"]);
    for (const child of children) await engine.waitFor(child.id, (row) => row.status === "sleeping");
    // Only the child's end completes an invoke's wait: no answer through the API does.
    const answered = await completeWaitToken(engine.database.db, engine, { executionId: id, name: "child", data: {} });
    expect(answered).toMatchObject({ ok: false, failure: { kind: "not_found" } });
    valueOrThrow(await cancelExecution(engine.database.db, engine, { executionId: id }));
    for (const child of children) {
      const row = await engine.waitFor(child.id, ended);
      expect(row.status).toBe("cancelled");
    }
    expect((await engine.execution(id)).status).toBe("cancelled");
  });
});

describe("cancelling a parent whose child is running", () => {
  it("tells the child, which stops at its next step", async () => {
    const id = await engine.run(project, "calls-slow", {});
    await engine.waitFor(id, (row) => row.status === "waiting");
    const [child] = await childrenOf(id);
    await engine.waitFor(child?.id ?? "", (row) => row.status === "running");
    valueOrThrow(await cancelExecution(engine.database.db, engine, { executionId: id }));
    const ended = await engine.waitFor(child?.id ?? "", (row) => ["succeeded", "cancelled"].includes(row.status));
    expect(ended.status).toBe("cancelled");
    const steps = await engine.database.db
      .select({ name: executionSteps.name })
      .from(executionSteps)
      .where(eq(executionSteps.executionId, child?.id ?? ""));
    expect(steps.map((step) => step.name)).not.toContain("after");
  });
});

describe("a delayed child with a time to live", () => {
  it("waits for its delay, and ends expired when claimed past its ttl (by the injected clock)", async () => {
    const id = await engine.run(project, "delayed", {});
    await engine.waitFor(id, (row) => row.status === "waiting");
    const children = await childrenOf(id);
    expect(children.map((child) => child.status)).toEqual(["queued", "queued", "queued"]);
    const rows = await Promise.all(children.map((child) => engine.execution(child.id)));
    const now = engine.clock.now().getTime();
    expect(rows.map((row) => row.runAt.getTime() - now)).toEqual([10_000, 10_000, 10_000]);
    engine.clock.advance(12_000);
    const done = await engine.waitFor(id, ended);
    const output = done.output as { late: string; onTime: string; invoked: string };
    const late = await engine.waitFor(output.late, ended);
    expect(late.status).toBe("expired");
    expect(late.error).toEqual({
      name: "ExpiredError",
      message: "the run was not started within its time to live (ttl)",
    });
    expect(late.startedAt).not.toBeNull();
    expect((await engine.waitFor(output.onTime, ended)).status).toBe("succeeded");
    const invoked = children.find((child) => child.id !== output.late && child.id !== output.onTime);
    expect(output.invoked).toBe(
      `the child execution ${invoked?.id} of "double" (invoked as "invoked") expired: ExpiredError: the run was not started within its time to live (ttl)`,
    );
    // Nothing of the expired run's code ran: it stored no step.
    const steps = await engine.database.db
      .select()
      .from(executionSteps)
      .where(eq(executionSteps.executionId, output.late));
    expect(steps).toEqual([]);
  });
});

describe("ctx.invokeMany", () => {
  it("starts a child per input in one transaction and returns their outputs in order", async () => {
    const id = await engine.run(project, "many", { count: 20 });
    const done = await engine.waitFor(id, ended, 60_000);
    expect(done.status).toBe("succeeded");
    expect((done.output as { doubled: number[] }).doubled).toEqual(Array.from({ length: 20 }, (_, n) => n * 2));
    const children = await childrenOf(id);
    expect(children).toHaveLength(20);
    const waits = await engine.database.db
      .select({ name: waitTokens.name, child: waitTokens.childExecutionId })
      .from(waitTokens)
      .where(eq(waitTokens.executionId, id));
    expect(waits.map((wait) => wait.name).sort()).toEqual(Array.from({ length: 20 }, (_, n) => `double#${n}`).sort());
    // One transaction wrote them: every child has the one creation instant and one wait.
    expect(new Set(waits.map((wait) => wait.child)).size).toBe(20);
  });

  it("refuses a batch with an input the callee's schema refuses, naming it, and starts none", async () => {
    const id = await engine.run(project, "many", { count: 5, bad: true });
    const done = await engine.waitFor(id, ended);
    expect(done.output).toMatchObject({ error: { name: "ChildWorkflowStartError" } });
    expect((done.output as { error: { message: string } }).error.message).toContain("inputs.2:");
    expect(await childrenOf(id)).toEqual([]);
  });
});

describe("a fan-out with Promise.all", () => {
  it("starts 50 children in one attempt, completes with every output in order, and runs no step twice", async () => {
    const id = await engine.run(project, "fan-out", { count: 50 });
    const done = await engine.waitFor(id, ended, 120_000);
    expect(done.status).toBe("succeeded");
    const output = done.output as number[];
    expect(output.slice(0, 50)).toEqual(Array.from({ length: 50 }, (_, i) => i * 2));
    const [beside] = await engine.database.db
      .select()
      .from(executionSteps)
      .where(and(eq(executionSteps.executionId, id), eq(executionSteps.name, "beside")));
    expect(output[50]).toBe(beside?.result.value);
    const children = await childrenOf(id);
    expect(children).toHaveLength(50);
    expect(children.every((child) => child.status === "succeeded")).toBe(true);
    // Every child was started by the first attempt: none waited for a resumption to be started.
    const [firstAttempt] = await engine.database.db
      .select({ spanId: spans.spanId })
      .from(spans)
      .where(and(eq(spans.executionId, id), eq(spans.name, "attempt 1")));
    const [{ count } = { count: 0 }] = await engine.database.db
      .select({ count: sql<number>`count(*)::int` })
      .from(spans)
      .where(
        and(eq(spans.executionId, id), eq(spans.parentSpanId, firstAttempt?.spanId ?? ""), eq(spans.kind, "token")),
      );
    expect(count).toBe(50);
  }, 180_000);
});
