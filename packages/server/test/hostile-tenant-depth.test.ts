import { bundleConfig, signedInTestPlatform } from "@weft/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { maxExecutionDepth } from "../src/engine/limits.ts";

/**
 * A tenant on the plan without an execution quota (`unlimited`, the default) cannot keep the
 * workers busy for ever with a workflow that starts itself: a loop through `ctx.invoke` or through
 * the event it sends itself stops once its executions are `maxExecutionDepth` starts deep, the
 * refused start naming the limit.
 */

const signedIn = signedInTestPlatform("looper@example.com", {
  configure: (parsed) => ({ ...parsed, worker: { ...parsed.worker, pollIntervalMs: 25 } }),
});

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "invokes-itself",
      retries: { maxAttempts: 1 },
      run: (_input: unknown, ctx) => ctx.invoke("again", "invokes-itself", {}),
    }),
    workflow({
      name: "pings-itself",
      on: [{ event: "ping" }],
      retries: { maxAttempts: 1 },
      async run(_input: unknown, ctx) {
        await ctx.sendEvent("again", { name: "ping", data: {} });
      },
    }),
  ],
});
`;

const once = { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 };
const manifest = {
  version: 1,
  workflows: [
    { name: "invokes-itself", retries: once },
    { name: "pings-itself", on: [{ event: "ping" }], retries: once },
  ],
};

interface Summary {
  id: string;
  status: string;
}
interface Listed {
  results: Summary[];
  totalCount: number;
}
interface Read {
  status: string;
  depth: number;
  error: { name: string; message: string } | null;
}

let projectId: string;

async function call<T>(procedure: string, input: unknown): Promise<T> {
  const result = await signedIn.call<T>(procedure, input);
  expect(result.status).toBe(200);
  return result.json;
}

const ended = (status: string) => ["succeeded", "failed", "cancelled", "expired"].includes(status);

/** The executions of `workflow` once one of them failed and all ended: nothing is left to start another. */
async function settled(workflow: string): Promise<Summary[]> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const listed = await call<Listed>("workflows.listExecutions", { projectId, workflow, pagination: { first: 100 } });
    const all = listed.results;
    if (all.some((row) => row.status === "failed") && all.every((row) => ended(row.status))) {
      expect(listed.totalCount).toBe(all.length);
      return all;
    }
    if (Date.now() > deadline) throw new Error(`${workflow} did not settle: ${listed.totalCount} executions`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  projectId = (await call<{ id: string }>("projects.create", { name: "Loops" })).id;
  await call("deployments.create", { projectId, manifest, bundle: await bundleConfig(source) });
});

describe("hostile tenant: a workflow that starts itself on the plan without a quota", () => {
  it("invoking itself ends failed after exactly max depth + 1 executions, the last start refused naming the limit", async () => {
    const { executionId } = await call<{ executionId: string }>("workflows.run", {
      projectId,
      workflow: "invokes-itself",
      input: {},
    });
    const chain = await settled("invokes-itself");
    expect(chain).toHaveLength(maxExecutionDepth + 1);
    expect(chain.every((row) => row.status === "failed")).toBe(true);
    const root = await call<Read>("workflows.getExecution", { executionId });
    expect(root).toMatchObject({ status: "failed", depth: 0 });
    expect(root.error?.message).toContain(
      `ChildWorkflowStartError: depth: this execution is ${maxExecutionDepth} starts deep, the limit (maxExecutionDepth)`,
    );
  }, 180_000);

  it("sending the event it is started by stops after exactly max depth + 1 executions, the last send refused naming the limit", async () => {
    await call("events.send", { projectId, name: "ping" });
    const chain = await settled("pings-itself");
    expect(chain).toHaveLength(maxExecutionDepth + 1);
    const failed = chain.filter((row) => row.status === "failed");
    expect(failed).toHaveLength(1);
    const last = await call<Read>("workflows.getExecution", { executionId: failed[0]?.id });
    expect(last.depth).toBe(maxExecutionDepth);
    expect(last.error).toMatchObject({
      name: "EventSendError",
      message: expect.stringContaining(`past the limit (maxExecutionDepth) of ${maxExecutionDepth}`),
    });
  }, 180_000);
});
