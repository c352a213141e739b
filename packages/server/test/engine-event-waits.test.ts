import {
  type EngineHarness,
  resumeOnAnotherWorker,
  startEngineHarness,
  storedStepValue,
  waitingWithoutWorker,
} from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendEvent } from "../src/events/send-event.ts";

/**
 * A wait for an event belongs to no worker: the one that ran the execution may go away, the event
 * is sent meanwhile (its send completes the wait in the database), and another worker resumes the
 * execution, replaying what was stored, on either database.
 */

let engine: EngineHarness;

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
  await engine.stop();
});

describe("a wait for an event whose worker goes away", () => {
  it("is completed by the send and resumed by another worker, running no step twice", async () => {
    const executionId = await waitingWithoutWorker(engine, "prj_events", "awaits-payment", { orderId: "o-1" });

    const sent = await sendEvent(engine.database.db, engine, {
      projectId: "prj_events",
      name: "order.paid",
      data: { orderId: "o-1" },
      source: { kind: "api" },
    });
    if (!sent.ok) throw new Error(sent.failure.message);
    expect(sent.value.resumed).toBe(1);
    expect((await engine.execution(executionId)).status).toBe("waiting");

    const done = await resumeOnAnotherWorker(engine, executionId);
    expect(done.status).toBe("succeeded");
    // A step run twice would hand the workflow a new random number, not the stored one.
    expect(done.output).toEqual({
      before: await storedStepValue(engine, executionId, "before"),
      paid: {
        ok: true,
        event: { id: sent.value.id, name: "order.paid", data: { orderId: "o-1" }, sentAt: expect.any(String) },
      },
      after: await storedStepValue(engine, executionId, "after"),
    });
  });
});
