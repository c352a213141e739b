import { type EngineHarness, startEngineHarness } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enqueueExecution } from "../src/engine/enqueue-execution.ts";
import { valueOrThrow } from "../src/shared/service-result.ts";
import { createManualTimers } from "../src/shared/timers.ts";

const idleMs = 60_000;
const timers = createManualTimers();
let engine: EngineHarness;

// A token drawn when the bundle loads tells one sandbox process from the next.
const source = `
import { defineConfig, workflow } from "@weft/sdk";
const token = Math.random().toString(36).slice(2);
export default defineConfig({
  workflows: [workflow({ name: "token", async run(_input: unknown, ctx) { return ctx.step("token", () => token); } })],
});
`;
const manifest = { version: 1, workflows: [{ name: "token" }] };

beforeAll(async () => {
  engine = await startEngineHarness({ sandboxIdleMs: idleMs }, { timers });
});
afterAll(async () => {
  await engine.stop();
});

async function tokenOf(executionId: string): Promise<unknown> {
  return (await engine.waitFor(executionId, (row) => row.status === "succeeded")).output;
}

/** Runs the pool's sweep (and the memory watchdog) now, then waits for the sweep's query to settle. */
async function sweepUntil(done: () => boolean): Promise<void> {
  timers.fireAll();
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
}

describe("sandbox processes at rest", () => {
  it("are kept warm until idle for WEFT_SANDBOX_IDLE_SECONDS, then stopped", async () => {
    const deploymentId = await engine.deploy("prj_idle", source, manifest);
    const first = await tokenOf(await engine.run("prj_idle", "token", {}));
    expect(engine.worker.sandboxes()).toContain(deploymentId);

    engine.clock.advance(idleMs - 1);
    timers.fireAll();
    expect(await tokenOf(await engine.run("prj_idle", "token", {}))).toBe(first);

    engine.clock.advance(idleMs);
    await sweepUntil(() => !engine.worker.sandboxes().includes(deploymentId));
    const next = await tokenOf(await engine.run("prj_idle", "token", {}));
    expect(next).not.toBe(first);
  });

  it("of a deployment no longer active are stopped once their executions end", async () => {
    const old = await engine.deploy("prj_retired", source, manifest);
    const first = await tokenOf(await engine.run("prj_retired", "token", {}));
    expect(engine.worker.sandboxes()).toContain(old);
    const current = await engine.deploy("prj_retired", source, manifest);
    await sweepUntil(() => !engine.worker.sandboxes().includes(old));

    // An execution queued on the old deployment still runs, in a process of its own again.
    const { executionId } = valueOrThrow(
      await engine.database.db.transaction((tx) =>
        enqueueExecution(
          tx,
          { clock: engine.clock, ids: engine.ids },
          { projectId: "prj_retired", deploymentId: old, workflow: "token", input: {}, trigger: { kind: "api" } },
        ),
      ),
    );
    expect(await tokenOf(executionId)).not.toBe(first);
    await tokenOf(await engine.run("prj_retired", "token", {}));
    expect(engine.worker.sandboxes()).toContain(current);
  });
});
