import { type EngineHarness, startEngineHarness, startTestWorker } from "@weft/testing";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { executionSteps } from "../src/db/schema/index.ts";
import type { Worker } from "../src/engine/worker.ts";
import { sendEvent } from "../src/events/send-event.ts";

/**
 * A wait for an event belongs to no worker: the one that ran the execution may go away, the event
 * is sent meanwhile (its send completes the wait in the database), and another worker resumes the
 * execution, replaying what was stored, on either database.
 */

let engine: EngineHarness;
let second: Worker | undefined;

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "awaits-payment",
      async run(input: { orderId: string }, ctx) {
        const before = await ctx.step("before", () => Math.random());
        const paid = await ctx.waitForEvent("paid", {
          event: "order.paid",
          match: { path: "$.data.orderId", equals: input.orderId },
          timeout: "1d",
        });
        const after = await ctx.step("after", () => Math.random());
        return { before, paid, after };
      },
    }),
  ],
});
`;

beforeAll(async () => {
  engine = await startEngineHarness();
  await engine.deploy("prj_events", source, { version: 1, workflows: [{ name: "awaits-payment" }] });
});

afterAll(async () => {
  await second?.stop();
  await engine.stop();
});

describe("a wait for an event whose worker goes away", () => {
  it("is completed by the send and resumed by another worker, running no step twice", async () => {
    const executionId = await engine.run("prj_events", "awaits-payment", { orderId: "o-1" });
    await engine.waitFor(executionId, (row) => row.status === "waiting");
    await engine.worker.stop();

    const sent = await sendEvent(engine.database.db, engine, {
      projectId: "prj_events",
      name: "order.paid",
      data: { orderId: "o-1" },
      source: { kind: "api" },
    });
    if (!sent.ok) throw new Error(sent.failure.message);
    expect(sent.value.resumed).toBe(1);
    expect((await engine.execution(executionId)).status).toBe("waiting");

    second = await startTestWorker(
      { database: engine.database, clock: engine.clock },
      { concurrency: 4, dataDir: engine.dataDir, sandbox: engine.isolation },
    );
    const done = await engine.waitFor(executionId, (row) => row.status === "succeeded" || row.status === "failed");
    expect(done.status).toBe("succeeded");
    const stored = await engine.database.db
      .select()
      .from(executionSteps)
      .where(eq(executionSteps.executionId, executionId));
    const value = (name: string) => stored.find((step) => step.name === name)?.result.value;
    // A step run twice would hand the workflow a new random number, not the stored one.
    expect(done.output).toEqual({
      before: value("before"),
      paid: {
        ok: true,
        event: { id: sent.value.id, name: "order.paid", data: { orderId: "o-1" }, sentAt: expect.any(String) },
      },
      after: value("after"),
    });
  });
});
