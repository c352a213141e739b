import { type EngineHarness, startEngineHarness } from "@weft/testing";
import { and, asc, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executions } from "../src/db/schema/index.ts";
import { maxExecutionDepth } from "../src/engine/limits.ts";
import { sendEvent } from "../src/events/send-event.ts";

/**
 * Executions that start executions nest at most `maxExecutionDepth` deep, on the plan without an
 * execution quota too: a workflow that starts itself, or sends the event it is started by, ends
 * there, the start past it refused naming the limit (on PGlite, and on PostgreSQL with
 * WEFT_TEST_DATABASE_URL).
 */

let engine: EngineHarness;
const project = "prj_depth";

const source = `
import { defineConfig, workflow } from "@weft/sdk";
const failure = (error: unknown) => ({ name: (error as Error).name, message: (error as Error).message });
export default defineConfig({
  workflows: [
    workflow({
      name: "invokes-itself",
      retries: { maxAttempts: 1 },
      async run(_input: unknown, ctx) {
        return await ctx.invoke("deeper", "invokes-itself", {});
      },
    }),
    workflow({
      name: "starts-itself",
      retries: { maxAttempts: 1 },
      async run(input: { many?: boolean }, ctx) {
        try {
          // Not the children's outputs, which would nest past the 64 levels a stored value may have.
          if (input.many === true) return (await ctx.invokeMany("deeper", "starts-itself", [input])).length;
          return await ctx.start("deeper", "starts-itself", input);
        } catch (error) {
          return failure(error);
        }
      },
    }),
    workflow({
      name: "echo",
      on: [{ event: "ping" }],
      retries: { maxAttempts: 1 },
      async run(_input: unknown, ctx) {
        try {
          await ctx.sendEvent("again", { name: "ping", data: {} });
          return "sent";
        } catch (error) {
          return failure(error);
        }
      },
    }),
  ],
});
`;

const manifest = {
  version: 1,
  workflows: [
    { name: "invokes-itself", retries: { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 } },
    { name: "starts-itself", retries: { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 } },
    { name: "echo", on: [{ event: "ping" }], retries: { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 } },
  ],
};

const tooDeep = {
  name: "ChildWorkflowStartError",
  message: `depth: this execution is ${maxExecutionDepth} starts deep, the limit (maxExecutionDepth) for executions started by executions, so it cannot start another`,
};

beforeAll(async () => {
  // The default plan, `unlimited`: no execution quota stops a loop.
  engine = await startEngineHarness();
  await engine.deploy(project, source, manifest);
});

afterAll(async () => {
  await engine.stop();
});

const ended = (row: { status: string }) => ["succeeded", "failed", "cancelled", "expired"].includes(row.status);

/** The project's executions of `workflow` (in the trace `traceId`, which children share), shallowest first. */
async function chainOf(workflow: string, traceId?: string) {
  return engine.database.db
    .select({
      id: executions.id,
      status: executions.status,
      depth: executions.depth,
      output: executions.output,
      error: executions.error,
      parentExecutionId: executions.parentExecutionId,
      triggerKind: executions.triggerKind,
    })
    .from(executions)
    .where(
      and(
        eq(executions.projectId, project),
        eq(executions.workflow, workflow),
        ...(traceId === undefined ? [] : [eq(executions.traceId, traceId)]),
      ),
    )
    .orderBy(asc(executions.depth));
}

const depths = Array.from({ length: maxExecutionDepth + 1 }, (_, depth) => depth);

describe("a workflow that starts itself", () => {
  it("invoking itself ends failed at the maximum depth, the deepest start refused naming it, after exactly max + 1 executions", async () => {
    const id = await engine.run(project, "invokes-itself", {});
    const root = await engine.waitFor(id, ended, 120_000);
    expect(root.status).toBe("failed");
    expect(root.error?.name).toBe("ChildWorkflowError");
    expect(root.error?.message).toContain(`${tooDeep.name}: ${tooDeep.message}`);
    const chain = await chainOf("invokes-itself", root.traceId);
    expect(chain.map((row) => row.depth)).toEqual(depths);
    expect(chain.every((row) => row.status === "failed")).toBe(true);
    const deepest = chain[maxExecutionDepth];
    expect(deepest?.error).toMatchObject(tooDeep);
    // Each is the child of the one before it, the root run from the API.
    expect(chain[0]).toMatchObject({ id, parentExecutionId: null, triggerKind: "api" });
    chain.slice(1).forEach((row, index) => {
      expect(row.parentExecutionId).toBe(chain[index]?.id);
    });
  }, 180_000);

  it.each([
    ["ctx.start", false],
    ["ctx.invokeMany", true],
  ])(
    "through %s, has the start past the maximum depth refused in its code, naming it",
    async (_via, many) => {
      const id = await engine.run(project, "starts-itself", { many });
      const root = await engine.waitFor(id, ended, 120_000);
      expect(root.status).toBe("succeeded");
      // ctx.start waits for no child: the chain goes on after the root has ended.
      const refused = async () => {
        const chain = await chainOf("starts-itself", root.traceId);
        return chain.every(ended) && chain.some((row) => (row.output as { name?: string }).name === tooDeep.name);
      };
      await expect.poll(refused, { timeout: 120_000 }).toBe(true);
      const chain = await chainOf("starts-itself", root.traceId);
      expect(chain.map((row) => row.depth)).toEqual(depths);
      expect(chain.every((row) => row.status === "succeeded")).toBe(true);
      expect(chain[maxExecutionDepth]?.output).toEqual(tooDeep);
    },
    180_000,
  );
});

describe("a workflow that sends the event it is started by", () => {
  it("stops at the maximum depth on a plan without a quota: the send past it is refused, naming the limit", async () => {
    const sent = await sendEvent(engine.database.db, engine, {
      projectId: project,
      name: "ping",
      data: {},
      source: { kind: "api" },
    });
    if (!sent.ok) throw new Error(sent.failure.message);
    const echoes = () => chainOf("echo");
    await expect
      .poll(async () => (await echoes()).filter((row) => ended(row) && row.output !== "sent").length, {
        timeout: 120_000,
      })
      .toBe(1);
    const rows = await echoes();
    expect(rows.every(ended)).toBe(true);
    expect(rows.map((row) => row.depth)).toEqual(depths);
    expect(rows[0]?.triggerKind).toBe("event");
    expect(rows[maxExecutionDepth]?.output).toEqual({
      name: "EventSendError",
      message: `depth: the executions this event starts would be ${maxExecutionDepth + 1} starts deep, past the limit (maxExecutionDepth) of ${maxExecutionDepth} for executions started by executions, so it is not sent`,
    });
  }, 180_000);
});
