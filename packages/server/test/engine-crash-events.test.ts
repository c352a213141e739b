import {
  egressToStepCounter,
  killWorkerOnceReached,
  serverDatabaseForWorkers,
  startCountedRun,
  testServerUrl,
  waitForExecution,
  workerUntilTestEnds,
} from "@weft/testing";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { events } from "../src/db/schema/index.ts";
import { endStatementParts } from "../src/engine-features.ts";
import { sendEvent } from "../src/events/send-event.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";

/**
 * A worker process killed (SIGKILL) while its execution waits for an event: the send completes the
 * wait in the database, and another worker process resumes the execution, which sends its own event
 * once and runs no step twice.
 */

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [
    workflow({
      name: "fulfil",
      async run(input: { base: string; orderId: string }, ctx) {
        const hit = (path: string) => ctx.step(path, async () => (await fetch(input.base + "/" + path)).text());
        const before = await hit("before");
        const paid = await ctx.waitForEvent("paid", {
          event: "order.paid",
          match: { path: "$.data.orderId", equals: input.orderId },
          timeout: "1d",
        });
        const sent = await ctx.sendEvent("announce", { name: "order.fulfilled", data: { orderId: input.orderId } });
        return [before, paid.ok, sent.executions.length, await hit("after")];
      },
    }),
  ],
});
`;

const deps = { clock: systemClock, ids: createIdGenerator(systemClock), endStatementParts };
const serverDatabase = serverDatabaseForWorkers();

describe.skipIf(testServerUrl() === undefined)(
  "a worker killed while an execution waits for an event (PostgreSQL only)",
  () => {
    it("loses nothing: the event resumes it on another worker, which sends its own event once", async () => {
      const database = serverDatabase();
      const db = database.db;
      const projectId = "prj_crash_event";
      const { counter, executionId } = await startCountedRun(database, deps, {
        projectId,
        manifest: { version: 1, workflows: [{ name: "fulfil" }] },
        configSource: source,
        workflow: "fulfil",
        input: { orderId: "o-1" },
      });
      const reach = (status: string) =>
        waitForExecution(db, executionId, (row) => row.status === status, { timeoutMs: 30_000, intervalMs: 100 });

      await killWorkerOnceReached(database.url, egressToStepCounter, () => reach("waiting"));

      const sent = await sendEvent(db, deps, {
        projectId,
        name: "order.paid",
        data: { orderId: "o-1" },
        source: { kind: "api" },
      });
      expect(sent.ok && sent.value.resumed).toBe(1);

      workerUntilTestEnds(database.url, egressToStepCounter);
      const row = await reach("succeeded");
      expect(row.output).toEqual(["before#1", true, 0, "after#1"]);
      expect(Object.fromEntries(counter.hits)).toEqual({ before: 1, after: 1 });
      const names = (await db.select({ name: events.name }).from(events).where(eq(events.projectId, projectId))).map(
        (event) => event.name,
      );
      expect(names.sort()).toEqual(["order.fulfilled", "order.paid"]);
    });
  },
);
