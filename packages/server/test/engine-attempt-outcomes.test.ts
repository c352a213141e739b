import { describe, expect, it } from "vitest";
import { cancelGraceOver } from "../src/engine/attempts/attempt-watch.ts";
import { exitEnding, finishedEnding, sleepEnding } from "../src/engine/attempts/child-outcomes.ts";
import { claimTransitionFrom } from "../src/engine/execution-state/index.ts";
import { cancelGraceMs, maxStoredBytesPerExecution } from "../src/engine/limits.ts";

const error = { name: "Error", message: "boom" };
const timeout = { ms: 1000, source: "workflow" as const };

describe("what the worker makes of a sandbox child's report", () => {
  it("ends an exited attempt by why the worker killed its process, if it did", () => {
    const run = { timedOut: false, cancelKilled: false, timeout };
    expect(exitEnding({ ...run, timedOut: true }, { error, killedByParent: true })).toMatchObject({
      kind: "fail",
      error: { name: "TimeoutError" },
    });
    expect(exitEnding({ ...run, cancelKilled: true }, { error, killedByParent: true })).toEqual({ kind: "cancel" });
    expect(exitEnding(run, { error, killedByParent: true })).toMatchObject({ kind: "requeue" });
    expect(exitEnding(run, { error, killedByParent: false })).toMatchObject({ kind: "fail", error });
  });

  it("fails a finished attempt whose output and logs would pass the execution's storage limit", () => {
    const message = {
      type: "finished" as const,
      executionId: "exe_1",
      outcome: { ok: true as const, result: { value: "x" } },
      logs: [],
    };
    expect(finishedEnding(0, message)).toMatchObject({ kind: "succeed", result: { value: "x" } });
    expect(finishedEnding(maxStoredBytesPerExecution, message)).toMatchObject({ kind: "fail", logs: [] });
  });

  it("sleeps from the instant the sleep is reported", () => {
    const now = new Date("2026-01-01T00:00:00.000Z");
    const message = { type: "sleep" as const, executionId: "exe_1", name: "nap", durationMs: 60_000, logs: [] };
    expect(sleepEnding(0, message, now)).toEqual({
      kind: "sleep",
      name: "nap",
      wakeAt: new Date("2026-01-01T00:01:00.000Z"),
      logs: [],
    });
  });
});

describe("the cancel grace period", () => {
  const requestedAt = new Date("2026-01-01T00:00:00.000Z");
  const afterRequest = (ms: number) => new Date(requestedAt.getTime() + ms);

  it("is over once cancelGraceMs have passed, unless the process is already being stopped", () => {
    const run = { cancelKilled: false, timedOut: false };
    expect(cancelGraceOver(run, requestedAt, afterRequest(cancelGraceMs - 1))).toBe(false);
    expect(cancelGraceOver(run, requestedAt, afterRequest(cancelGraceMs))).toBe(true);
    expect(cancelGraceOver({ ...run, cancelKilled: true }, requestedAt, afterRequest(cancelGraceMs))).toBe(false);
    expect(cancelGraceOver({ ...run, timedOut: true }, requestedAt, afterRequest(cancelGraceMs))).toBe(false);
  });
});

describe("claim transitions", () => {
  it("names the transition a claimed row took from its previous state", () => {
    expect(claimTransitionFrom("queued")).toBe("claim");
    expect(claimTransitionFrom("sleeping")).toBe("wake");
    expect(claimTransitionFrom("running")).toBe("expireLease");
    expect(() => claimTransitionFrom("succeeded")).toThrow();
  });
});
