import { type EngineHarness, startEngineHarness } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let engine: EngineHarness;

const source = `
import { readFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { defineConfig, workflow } from "@weft/sdk";

const once = { maxAttempts: 1 };
export default defineConfig({
  workflows: [
    workflow({ name: "reader", retries: once, async run(_input: unknown, ctx) {
      return ctx.step("read", () => readFileSync("/etc/hostname", "utf8"));
    } }),
    workflow({ name: "spawner", retries: once, async run(_input: unknown, ctx) {
      return ctx.step("spawn", () => spawnSync("true").status);
    } }),
    workflow({ name: "hog", retries: once, async run(_input: unknown, ctx) {
      return ctx.step("eat", () => {
        const heap: number[][] = [];
        for (;;) heap.push(new Array(1_000_000).fill(Math.random()));
      });
    } }),
    workflow({ name: "healthy", retries: once, async run(input: { n: number }, ctx) {
      return ctx.step("square", () => input.n * input.n);
    } }),
    workflow({ name: "whoami", retries: once, async run(_input: unknown, ctx) {
      return ctx.step("pid", () => process.pid);
    } }),
  ],
});
`;

const once = { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 };
const manifest = {
  version: 1,
  workflows: ["reader", "spawner", "hog", "healthy", "whoami"].map((name) => ({ name, retries: once })),
};

beforeAll(async () => {
  // The cap covers the whole process (Node itself holds 45-80 MB), not only the V8 heap.
  engine = await startEngineHarness({ memoryMb: 128 });
  await engine.deploy("prj_box", source, manifest);
});
afterAll(async () => {
  await engine.stop();
});

describe("the sandbox", () => {
  it("runs executions claimed while their deployment is cold in one shared child process", async () => {
    await engine.deploy("prj_cold", source, manifest);
    const ids = await Promise.all(Array.from({ length: 6 }, () => engine.run("prj_cold", "whoami", {})));
    const rows = await Promise.all(ids.map((id) => engine.waitFor(id, (row) => row.status === "succeeded")));
    const pids = new Set(rows.map((row) => row.output));
    expect(pids.size).toBe(1);
    expect(pids.has(process.pid)).toBe(false);
  });

  it("refuses to read a file outside the bundle, failing that attempt", async () => {
    const id = await engine.run("prj_box", "reader", {});
    const failed = await engine.waitFor(id, (row) => row.status === "failed");
    expect(failed.error?.message).toMatch(/ERR_ACCESS_DENIED|Access to this API has been restricted/);
  });

  it("refuses to spawn a process", async () => {
    const id = await engine.run("prj_box", "spawner", {});
    const failed = await engine.waitFor(id, (row) => row.status === "failed");
    expect(failed.error?.message).toMatch(/ERR_ACCESS_DENIED|Access to this API has been restricted/);
  });

  it("fails an attempt that exceeds the memory cap, and the worker goes on running executions", async () => {
    const id = await engine.run("prj_box", "hog", {});
    const failed = await engine.waitFor(id, (row) => row.status === "failed", 60_000);
    expect(failed.error?.name).toBe("OutOfMemoryError");
    const next = await engine.run("prj_box", "healthy", { n: 12 });
    expect((await engine.waitFor(next, (row) => row.status === "succeeded")).output).toBe(144);
  });
});
