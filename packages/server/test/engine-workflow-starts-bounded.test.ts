import { type EngineHarness, startEngineHarness } from "@weft/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quotaCacheMs } from "../src/billing/quota-gate.ts";
import { executions } from "../src/db/schema/index.ts";

/**
 * The starts a running workflow makes of its own (the executions its events start, the children it
 * waits for) are bounded as any other start: a workflow cannot multiply itself past its plan, nor
 * wait for a child flow control would never run.
 */

let engine: EngineHarness;
const project = "prj_starts_bounded";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
const failure = (error: unknown) => ({ name: (error as Error).name, message: (error as Error).message });
const limited = workflow({ name: "limited", rateLimit: { limit: 1, period: "1h" }, async run() { return 1; } });
const debounced = workflow({ name: "debounced", debounce: { period: "1s" }, async run() { return 1; } });
export default defineConfig({
  workflows: [
    limited,
    debounced,
    workflow({
      name: "echo",
      on: [{ event: "ping" }],
      async run(_input: unknown, ctx) {
        try {
          await ctx.sendEvent("again", { name: "ping", data: {} });
          return "sent";
        } catch (error) {
          return failure(error);
        }
      },
    }),
    workflow({
      name: "waits",
      async run(input: { callee: "limited" | "debounced"; many?: boolean }, ctx) {
        const callee = input.callee === "limited" ? limited : debounced;
        try {
          if (input.many === true) return await ctx.invokeMany("children", callee, [{}]);
          return await ctx.invoke("child", callee, {});
        } catch (error) {
          return failure(error);
        }
      },
    }),
    workflow({
      name: "starts",
      async run(_input: unknown, ctx) {
        return typeof (await ctx.start("child", limited, {}));
      },
    }),
    workflow({
      name: "starts-debounced",
      async run(_input: unknown, ctx) {
        return ctx.start("child", debounced, {});
      },
    }),
  ],
});
`;

const manifest = {
  version: 1,
  workflows: [
    { name: "limited", rateLimit: { limit: 1, periodMs: 3_600_000 } },
    { name: "debounced", debounce: { periodMs: 1000 } },
    { name: "echo", on: [{ event: "ping" }] },
    { name: "waits" },
    { name: "starts" },
    { name: "starts-debounced" },
  ],
};

beforeAll(async () => {
  engine = await startEngineHarness({
    billing: { plans: [{ name: "small", executionsPerMonth: 12, projects: 2 }], defaultPlan: "small" },
  });
  await engine.deploy(project, source, manifest);
});

afterAll(async () => {
  await engine.stop();
});

const ended = (row: { status: string }) => ["succeeded", "failed", "cancelled", "expired"].includes(row.status);

describe("a workflow's own starts", () => {
  it("refuses ctx.invoke and ctx.invokeMany of a workflow whose start a rate limit may skip or a debounce fold, naming the option; ctx.start of one is allowed", async () => {
    for (const [callee, option] of [
      ["limited", "rateLimit"],
      ["debounced", "debounce"],
    ] as const) {
      for (const many of [false, true]) {
        const id = await engine.run(project, "waits", { callee, many });
        const done = await engine.waitFor(id, ended);
        expect(done.output).toEqual({
          name: "ChildWorkflowStartError",
          message: `workflow: "${callee}" has a ${option}, which may skip or fold a start, so it cannot be waited for; start it with ctx.start`,
        });
        expect(await engine.database.db.select().from(executions).where(eq(executions.parentExecutionId, id))).toEqual(
          [],
        );
      }
    }
    const started = await engine.waitFor(await engine.run(project, "starts", {}), ended);
    expect(started.output).toBe("string");
  });

  it("answers ctx.start of a debounced workflow with the queued execution the start was folded into", async () => {
    const first = await engine.waitFor(await engine.run(project, "starts-debounced", {}), ended);
    const second = await engine.waitFor(await engine.run(project, "starts-debounced", {}), ended);
    expect(typeof first.output).toBe("string");
    expect(second.output).toBe(first.output);
    const [child] = await engine.database.db
      .select({ workflow: executions.workflow })
      .from(executions)
      .where(eq(executions.id, second.output as string));
    expect(child).toEqual({ workflow: "debounced" });
  });

  it("stops a workflow that sends the event it is started by at the plan's executions per month, the refused send naming the quota", async () => {
    const before = await engine.database.db.select().from(executions).where(eq(executions.projectId, project));
    await engine.run(project, "echo", {});
    // That start passed no quota gate: the gate reads the month's count again once its cached one ages.
    engine.clock.advance(quotaCacheMs);
    const echoes = () =>
      engine.database.db
        .select({ status: executions.status, output: executions.output })
        .from(executions)
        .where(eq(executions.workflow, "echo"));
    await expect
      .poll(async () => (await echoes()).filter((row) => ended(row) && row.output !== "sent").length, {
        timeout: 20_000,
      })
      .toBe(1);
    const rows = await echoes();
    expect(rows.every(ended)).toBe(true);
    const refused = rows.find((row) => row.output !== "sent")?.output as { name: string; message: string };
    expect(refused.name).toBe("EventSendError");
    expect(refused.message).toMatch(/executionsPerMonth/);
    // The month's 12 executions: those before, then echoes until the quota was used up.
    expect(before.length + rows.length).toBe(12);
  });
});
