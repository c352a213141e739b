import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { attemptTimeout, timeoutError } from "../src/engine/attempt-timeout.ts";
import { formatBytes, maxStoredBytesPerExecution } from "../src/engine/limits.ts";
import { startMemoryWatchdog } from "../src/engine/sandbox/memory-watchdog.ts";
import {
  processTreeRssBytes,
  processTreeTmpfsBytes,
  sandboxMemoryBytes,
} from "../src/engine/sandbox/process-tree-memory.ts";
import { parseChildMessage } from "../src/engine/sandbox/protocol.ts";
import { killSandboxProcess } from "../src/engine/sandbox/sandbox-process-group.ts";
import { checkLogs, checkStepResult, storableError, storageBudgetError } from "../src/engine/stored-values.ts";
import { workspaceSlots } from "../src/engine/workspace-share.ts";
import { createManualTimers } from "../src/shared/timers.ts";

describe("attempt timeouts", () => {
  it("gives a workflow without a timeout the default, and caps any timeout at the maximum", () => {
    expect(attemptTimeout(null, { defaultTimeoutMs: 900_000 })).toEqual({ ms: 900_000, source: "default" });
    expect(attemptTimeout(5000, { defaultTimeoutMs: 900_000 })).toEqual({ ms: 5000, source: "workflow" });
    expect(attemptTimeout(3_600_000, { defaultTimeoutMs: 900_000, maxTimeoutMs: 60_000 })).toEqual({
      ms: 60_000,
      source: "maximum",
    });
    expect(attemptTimeout(null, { defaultTimeoutMs: 900_000, maxTimeoutMs: 60_000 }).source).toBe("maximum");
    expect(attemptTimeout(1000, { defaultTimeoutMs: 900_000, maxTimeoutMs: 60_000 })).toEqual({
      ms: 1000,
      source: "workflow",
    });
    expect(timeoutError({ ms: 1000, source: "workflow" }).message).toBe(
      "the attempt exceeded the workflow's timeout of 1000 ms",
    );
  });
});

describe("workspace slots", () => {
  it("is the share of the worker's concurrency, rounded down, and never below one", () => {
    expect(workspaceSlots(8, 0.5)).toBe(4);
    expect(workspaceSlots(20, 0.5)).toBe(10);
    expect(workspaceSlots(7, 0.5)).toBe(3);
    expect(workspaceSlots(1, 0.5)).toBe(1);
    expect(workspaceSlots(10, 1)).toBe(10);
  });
});

describe("stored values", () => {
  it("measures results as JSON text and names the limit", () => {
    expect(checkStepResult("s", { value: "abc" })).toEqual({ ok: true, bytes: 5 });
    expect(checkStepResult("s", {})).toEqual({ ok: true, bytes: 0 });
    expect(checkStepResult("s", { value: "x".repeat(5 * 1024 * 1024) })).toEqual({
      ok: false,
      error: { name: "StepResultTooLargeError", message: 'the result of step "s" is 5.0 MiB; the limit is 4 MiB' },
    });
  });

  it("refuses a forged value nested too deep for JSON.stringify before stringifying it", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    const checked = checkStepResult("s", { value: deep });
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.error.message).toMatch(/nested more than 64 levels deep/);
  });

  it("checks each log line's size and strings, including field keys and the timestamp", () => {
    const line = (message: string, fields?: Record<string, unknown>) => ({
      at: "t",
      level: "info" as const,
      message,
      fields,
    });
    expect(checkLogs([line("a"), line("b", { k: 1 })]).ok).toBe(true);
    expect(checkLogs([line("x".repeat(16 * 1024 + 1))])).toMatchObject({
      ok: false,
      error: { name: "LogLineTooLargeError" },
    });
    expect(checkLogs([line("m", { "k\u0000": 1 })])).toMatchObject({
      ok: false,
      error: {
        name: "UnstorableValueError",
        message: expect.stringMatching(/logs\[0\]\.fields\["k\\u0000"\] contains a NUL/),
      },
    });
    expect(checkLogs([{ ...line("m"), at: "\uD800" }]).ok).toBe(false);
  });

  it("allows exactly 64 MiB per execution and refuses a byte more", () => {
    expect(storageBudgetError(maxStoredBytesPerExecution - 10, 10, "x")).toBeUndefined();
    expect(storageBudgetError(maxStoredBytesPerExecution - 10, 11, 'step "s"')?.message).toBe(
      `storing step "s" (11 bytes) would bring the execution's stored data to 64.0 MiB; the limit is 64 MiB`,
    );
  });

  it("makes a reported error storable and bounded instead of refusing it", () => {
    const error = storableError({ name: "E\u0000", message: "\uD800".repeat(100_000), stack: "s" });
    expect(error.name).toBe("E\uFFFD");
    expect(error.message.isWellFormed()).toBe(true);
    expect(error.message.length).toBeLessThan(40_000);
    expect(formatBytes(512)).toBe("512 bytes");
  });
});

describe("child messages", () => {
  it("names the execution of a malformed message when it can, so only that attempt fails", () => {
    expect(parseChildMessage({ type: "step", executionId: "exe_1", sequence: "first" })).toMatchObject({
      ok: false,
      executionId: "exe_1",
    });
    expect(parseChildMessage({ type: "nonsense" })).toMatchObject({ ok: false, executionId: undefined });
    expect(parseChildMessage("text")).toMatchObject({ ok: false, executionId: undefined });
    expect(parseChildMessage({ type: "sleep", executionId: "exe_1", name: "n", durationMs: 1e15, logs: [] }).ok).toBe(
      false,
    );
    expect(parseChildMessage({ type: "ready" })).toEqual({ ok: true, message: { type: "ready" } });
  });
});

describe("the memory watchdog", () => {
  it("reports each process over the limit at every tick, and stops", () => {
    const timers = createManualTimers();
    const readings = new Map([
      [1, 100],
      [2, 300],
    ]);
    const over: number[] = [];
    const watchdog = startMemoryWatchdog({
      timers,
      intervalMs: 250,
      limitBytes: 200,
      readBytes: (pid) => readings.get(pid),
      watched: () => [1, 2, undefined].map((pid) => ({ pid, overLimit: () => over.push(pid ?? 0) })),
    });
    expect(over).toEqual([]);
    timers.fireAll();
    expect(over).toEqual([2]);
    readings.set(1, 201);
    timers.fireAll();
    expect(over).toEqual([2, 1, 2]);
    watchdog.stop();
    expect(timers.pending()).toBe(0);
  });

  it("reads the resident memory of a process tree from /proc, children included", async () => {
    const child = spawn(process.execPath, [
      "-e",
      "const kept = Buffer.alloc(64 * 1024 * 1024, 1); setInterval(() => kept, 1000)",
    ]);
    try {
      const childBytes = () => processTreeRssBytes(child.pid ?? -1) ?? 0;
      const deadline = Date.now() + 10_000;
      while (childBytes() <= 64 * 1024 * 1024) {
        if (Date.now() > deadline) throw new Error(`the child never held its Buffer: ${childBytes()} bytes`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(processTreeRssBytes(process.pid)).toBeGreaterThan(childBytes());
      expect(processTreeRssBytes(process.pid, "/nonexistent")).toBeUndefined();
    } finally {
      child.kill("SIGKILL");
    }
  });

  it.skipIf(!existsSync("/usr/bin/bwrap") && process.env.WEFT_TEST_REQUIRE_SANDBOX !== "1")(
    "counts what a bubblewrap sandbox wrote to its own /tmp, which no RSS shows, and not the host's /tmp",
    async () => {
      const binds = ["/usr", "/bin", "/lib", "/lib64"].filter(existsSync).flatMap((dir) => ["--ro-bind", dir, dir]);
      // A process group of its own, killed whole below: bubblewrap's namespace init would outlive it.
      const child = spawn(
        "bwrap",
        [
          ...binds,
          "--unshare-all",
          "--dev",
          "/dev",
          "--size",
          String(32 * 1024 * 1024),
          "--tmpfs",
          "/tmp",
          "--",
          "sh",
          "-c",
          "head -c 16777216 /dev/zero > /tmp/held && exec sleep 60",
        ],
        { detached: true },
      );
      try {
        const tmpfsBytes = () => processTreeTmpfsBytes(child.pid ?? -1);
        const deadline = Date.now() + 10_000;
        while (tmpfsBytes() < 16 * 1024 * 1024) {
          if (Date.now() > deadline) throw new Error(`the sandbox never filled its /tmp: ${tmpfsBytes()} bytes`);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(tmpfsBytes()).toBeLessThan(17 * 1024 * 1024);
        // Until `sh` has become `sleep` the tree's resident memory moves between two reads: wait
        // until it holds still, so that the watchdog's count and the RSS below are of one tree.
        const rss = () => processTreeRssBytes(child.pid ?? -1) ?? 0;
        for (let last = -1; rss() !== last; await new Promise((resolve) => setTimeout(resolve, 50))) {
          if (Date.now() > deadline) throw new Error("the sandbox's resident memory never held still");
          last = rss();
        }
        expect(sandboxMemoryBytes(child.pid ?? -1)).toBeGreaterThan(rss() + 16 * 1024 * 1024 - 1);
        expect(processTreeTmpfsBytes(process.pid)).toBe(tmpfsBytes());
        expect(processTreeTmpfsBytes(process.pid, "/nonexistent")).toBe(0);
      } finally {
        killSandboxProcess(child);
      }
    },
  );
});
