import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { sandboxSuitesRunHere, startReadySandboxChild } from "@weft/testing";
import { describe, expect, it } from "vitest";
import { processTree } from "../src/engine/sandbox/process-tree-memory.ts";
import { killSandboxProcess } from "../src/engine/sandbox/sandbox-process-group.ts";

/** Whether `pid` still runs: a zombie waiting for its reaper has ended. */
function running(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  try {
    return readFileSync(stat, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

/** Waits for the kernel to end every one of `pids` (a SIGKILL is delivered, not awaited); at most 5 s. */
async function ended(pids: readonly number[]): Promise<number[]> {
  for (let polls = 0; polls < 100 && pids.some(running); polls++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return pids.filter(running);
}

/** The pid a detached shell prints of the `sleep` it started in its own process group. */
async function shellWithSleep(): Promise<{ child: ChildProcess; sleeper: number }> {
  const child = spawn("sh", ["-c", "sleep 60 & echo $!; wait"], {
    detached: true,
    stdio: ["ignore", "pipe", "ignore"],
  });
  const [line] = (await once(child.stdout ?? child, "data")) as [Buffer];
  return { child, sleeper: Number(line.toString().trim()) };
}

describe("killing a sandbox's process", () => {
  it("ends every process of its group, where a kill of the process alone leaves them", async () => {
    const alone = await shellWithSleep();
    alone.child.kill("SIGKILL");
    await once(alone.child, "exit");
    expect(running(alone.sleeper)).toBe(true);
    process.kill(alone.sleeper, "SIGKILL");

    const grouped = await shellWithSleep();
    killSandboxProcess(grouped.child);
    await once(grouped.child, "exit");
    expect(await ended([grouped.sleeper])).toEqual([]);
  });

  it("kills a child that leads no group of its own by itself", async () => {
    const child = spawn("sleep", ["60"], { stdio: "ignore" });
    await once(child, "spawn");
    killSandboxProcess(child);
    const [, signal] = await once(child, "exit");
    expect(signal).toBe("SIGKILL");
  });
});

describe.skipIf(!(await sandboxSuitesRunHere()))("a bubblewrap sandbox's process", () => {
  it("leads a process group of its own, and its kill leaves none of the sandbox's processes", async () => {
    const sandbox = await startReadySandboxChild("process-group");
    try {
      const groupOf = (pid: number) => Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[2]);
      expect(groupOf(sandbox.pid)).toBe(sandbox.pid);
      const tree = processTree(sandbox.pid);
      // bubblewrap, the namespace's init and the workflow's Node at least.
      expect(tree.length).toBeGreaterThanOrEqual(3);
      killSandboxProcess(sandbox.child);
      await once(sandbox.child, "exit");
      expect(await ended(tree)).toEqual([]);
    } finally {
      await sandbox.close();
    }
  });
});
