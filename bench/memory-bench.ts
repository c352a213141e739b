import { spawn } from "node:child_process";
import { once } from "node:events";
import { accessSync, constants, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { processTreeRssBytes } from "@weft/server/internals";
import { freePort } from "@weft/testing";
import { startAndRead } from "./platform-start.ts";
import { formatMiB, idleTargetBytes, restMs } from "./resident-memory.ts";

const MiB = 1024 * 1024;

/** A first start on a fresh data directory: its process tree must stay under this, and serve within this. */
export const firstStartPeakTargetBytes = 600 * MiB;
export const firstStartHealthyTargetSeconds = 8;

export interface MemoryBenchOptions {
  write: (line: string) => void;
}

/**
 * The memory part: `npm start` on a fresh data directory (its first start, which creates the
 * database), then again on the same directory (a warm start), each from its spawn to a 200 from
 * `/healthz` and then at rest, beside the targets; n8n's memory at rest beside it where n8n is
 * installed.
 */
export async function runMemoryBench(options: MemoryBenchOptions): Promise<void> {
  const { write } = options;
  write(
    `Start-up and memory of npm start (every role, embedded database, no sandbox running; at rest = ${restMs / 1000} s after /healthz answers)`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-memory-"));
  try {
    const first = await startAndRead(dataDir, restMs);
    const warm = await startAndRead(dataDir, restMs);
    const within = (ok: boolean) => (ok ? "within" : "NOT within");
    // Sampled, the tree's peak can miss the platform's own, which the kernel records exactly.
    const readings = [first.treePeakBytes, first.platformPeakBytes].filter((bytes) => bytes !== undefined);
    const firstPeak = readings.length === 0 ? Infinity : Math.max(...readings);
    write(
      `  first start, fresh data directory: healthy after ${first.healthySeconds.toFixed(1)} s (target < ${firstStartHealthyTargetSeconds} s: ${within(first.healthySeconds < firstStartHealthyTargetSeconds)}); ` +
        `peak ${formatMiB(first.treePeakBytes)} for the process tree, ${formatMiB(first.platformPeakBytes)} for the platform process alone (VmHWM) ` +
        `(the larger against the target < ${formatMiB(firstStartPeakTargetBytes)}: ${within(firstPeak < firstStartPeakTargetBytes)}); at rest ${formatMiB(first.restBytes)}`,
    );
    write(
      `  warm start: healthy after ${warm.healthySeconds.toFixed(1)} s; peak ${formatMiB(warm.platformPeakBytes)} (VmHWM); ` +
        `at rest ${formatMiB(warm.restBytes)} (target < ${formatMiB(idleTargetBytes)}: ${within((warm.restBytes ?? Infinity) < idleTargetBytes)})`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  const n8n = findOnPath("n8n");
  if (n8n === undefined) write("  n8n at rest: not measured (no n8n on the PATH)");
  else
    write(
      `  n8n at rest (n8n start, ${restMs / 1000} s after /healthz answers): ${formatMiB(await n8nRestBytes(n8n))}`,
    );
}

function findOnPath(name: string): string | undefined {
  for (const directory of (process.env.PATH ?? "").split(delimiter)) {
    const path = join(directory, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {}
  }
  return undefined;
}

/** Resident memory of `n8n start` in a fresh user folder, once it answers `/healthz` and has rested. */
async function n8nRestBytes(n8n: string): Promise<number | undefined> {
  const folder = mkdtempSync(join(tmpdir(), "weft-bench-n8n-"));
  const port = await freePort();
  const child = spawn(n8n, ["start"], {
    env: { PATH: process.env.PATH ?? "", HOME: folder, N8N_USER_FOLDER: folder, N8N_PORT: String(port) },
    stdio: ["ignore", "ignore", "ignore"],
  });
  const exited = once(child, "exit");
  try {
    while (
      !(await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.ok,
        () => false,
      ))
    ) {
      if (child.exitCode !== null) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await new Promise((resolve) => setTimeout(resolve, restMs));
    return child.pid === undefined ? undefined : processTreeRssBytes(child.pid);
  } finally {
    child.kill("SIGTERM");
    await exited;
    rmSync(folder, { recursive: true, force: true });
  }
}
