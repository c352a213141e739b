import { type EngineHarness, startEngineHarness } from "@weft/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let engine: EngineHarness;

const source = `
import { defineConfig, workflow } from "@weft/sdk";
export default defineConfig({
  workflows: [workflow({ name: "noop", retries: { maxAttempts: 1 }, async run() { return 1; } })],
});
`;

beforeAll(async () => {
  // As when bubblewrap is removed after the start-up probe found it.
  engine = await startEngineHarness({
    isolation: { mode: "bwrap", egress: "public", egressAllow: [], bwrapPath: "/nonexistent/bwrap" },
  });
  await engine.deploy("prj_gone", source, {
    version: 1,
    workflows: [{ name: "noop", retries: { maxAttempts: 1, minDelayMs: 0, maxDelayMs: 0 } }],
  });
});
afterAll(async () => {
  await engine.stop();
});

describe("a sandbox that cannot be started", () => {
  it("fails the attempt instead of leaving the execution running", async () => {
    const id = await engine.run("prj_gone", "noop", {});
    const failed = await engine.waitFor(id, (row) => row.status === "failed");
    expect(failed.error?.name).toBe("SandboxExitError");
    expect(failed.error?.message).toMatch(/stopped unexpectedly/);
  });
});
