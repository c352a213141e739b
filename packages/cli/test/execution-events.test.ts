import { describe, expect, it } from "vitest";
import { type ExecutionLike, progressLines } from "../src/execution-events.ts";

const base: ExecutionLike = { id: "exe_1", workflow: "echo", status: "queued", attempt: 0, steps: [] };

describe("progressLines", () => {
  it("reports the first look as its status", () => {
    expect(progressLines(undefined, base)).toEqual(["queued"]);
  });

  it("reports newly completed steps before the status change they led to", () => {
    const running = { ...base, status: "running", attempt: 1, steps: [{ name: "double", durationMs: 4 }] };
    expect(progressLines(base, running)).toEqual(["attempt 1 started", "step double done in 4ms", "running"]);
    const done = {
      ...running,
      status: "succeeded",
      steps: [...running.steps, { name: "nap", kind: "sleep", durationMs: 3000 }],
    };
    expect(progressLines(running, done)).toEqual(["slept nap done in 3000ms", "succeeded"]);
  });

  it("says nothing when nothing changed, and names the error of a failure and of a retried attempt", () => {
    const running = { ...base, status: "running", attempt: 1 };
    expect(progressLines(running, running)).toEqual([]);
    const failedOnce = { ...running, error: { message: "boom" } };
    expect(progressLines(failedOnce, { ...failedOnce, attempt: 2 })).toEqual(["attempt 2 started (attempt 1: boom)"]);
    expect(progressLines(running, { ...running, status: "failed", error: { message: "boom" } })).toEqual([
      "failed: boom",
    ]);
  });
});
