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
import { executionSteps, executions } from "../src/db/schema/index.ts";
import { systemClock } from "../src/shared/clock.ts";
import { createIdGenerator } from "../src/shared/ids.ts";

/**
 * A worker process killed with SIGKILL in the middle of a fan-out of 50 children (`ctx.invoke`
 * over `Promise.all`): another worker finishes it, with each child started once, the parent's
 * steps run once, and every child's output in its place.
 */

const children = 50;
const blockedChild = 25;

const source = `
import { defineConfig, workflow } from "@weft/sdk";

const leaf = workflow({
  name: "leaf",
  async run(input: { base: string; i: number }, ctx) {
    const path = input.i === ${blockedChild} ? "block" : "leaf-" + input.i;
    return ctx.step("hit", async () => (await fetch(input.base + "/" + path)).text());
  },
});

export default defineConfig({
  workflows: [
    leaf,
    workflow({
      name: "fan-out",
      async run(input: { base: string }, ctx) {
        const hit = (path: string) => ctx.step(path, async () => (await fetch(input.base + "/" + path)).text());
        const before = await hit("before");
        const results = await Promise.all(
          Array.from({ length: ${children} }, (_, i) => ctx.invoke("leaf-" + i, leaf, { base: input.base, i })),
        );
        return { before, results, after: await hit("after") };
      },
    }),
  ],
});
`;

const deps = { clock: systemClock, ids: createIdGenerator(systemClock) };
const serverDatabase = serverDatabaseForWorkers();

describe.skipIf(testServerUrl() === undefined)("a worker killed in the middle of a fan-out (PostgreSQL only)", () => {
  it("is replaced by another that finishes it: 50 children started once, no parent step run twice", async () => {
    const database = serverDatabase();
    const { counter, executionId: parentId } = await startCountedRun(database, deps, {
      projectId: "prj_crash_fan_out",
      manifest: { version: 1, workflows: [{ name: "leaf" }, { name: "fan-out" }] },
      configSource: source,
      workflow: "fan-out",
    });
    // The blocked child is running: the fan-out is under way, its other children started or running.
    await killWorkerOnceReached(database.url, egressToStepCounter, () => counter.blocked);

    workerUntilTestEnds(database.url, egressToStepCounter);
    const row = await waitForExecution(database.db, parentId, (found) => found.status === "succeeded", {
      timeoutMs: 90_000,
      intervalMs: 200,
    });
    const started = await database.db
      .select({ id: executions.id, input: executions.input, status: executions.status })
      .from(executions)
      .where(eq(executions.parentExecutionId, parentId));
    // One child per name: a replay after the crash found the children the first worker started.
    expect(started).toHaveLength(children);
    const indexes = started.map((child) => (child.input as { i: number }).i).sort((a, b) => a - b);
    expect(indexes).toEqual(Array.from({ length: children }, (_, i) => i));
    expect(started.every((child) => child.status === "succeeded")).toBe(true);

    const output = row.output as { before: string; results: string[]; after: string };
    expect(output.before).toBe("before#1");
    expect(output.after).toBe("after#1");
    expect(counter.hits.get("before")).toBe(1);
    expect(counter.hits.get("after")).toBe(1);
    // The blocked child's step was cut off by the kill and ran again; it is stored once.
    expect(output.results[blockedChild]).toBe("block#2");
    for (let i = 0; i < children; i += 1) {
      if (i === blockedChild) continue;
      // A child's step in flight at the kill may run again; a stored one never does.
      expect(output.results[i]).toMatch(new RegExp(`^leaf-${i}#[12]$`));
    }
    // Each result is the one its child stored.
    for (const child of started) {
      const [hit] = await database.db.select().from(executionSteps).where(eq(executionSteps.executionId, child.id));
      expect(output.results[(child.input as { i: number }).i]).toBe(hit?.result.value);
    }
    const parentSteps = await database.db
      .select({ name: executionSteps.name })
      .from(executionSteps)
      .where(eq(executionSteps.executionId, parentId));
    expect(parentSteps.map((step) => step.name).sort()).toEqual(["after", "before"]);
  }, 150_000);
});
