import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processTreeRssBytes } from "@weft/server/internals";
import { startAndRead } from "./platform-start.ts";

const MiB = 1024 * 1024;

/** Resident memory of a platform at rest must stay under this (the server process, no sandbox running). */
export const idleTargetBytes = 300 * MiB;

/**
 * How long a started platform is left alone before its memory is read: long enough for what start-up
 * sets going in the background (V8 optimizing PostgreSQL's hot functions) to end on a busy machine.
 */
export const restMs = 15_000;

export function formatMiB(bytes: number | undefined): string {
  return bytes === undefined ? "unknown (no /proc)" : `${(bytes / MiB).toFixed(0)} MB`;
}

/**
 * Resident memory of `npm start` (every role, worker included, on the embedded database) once it
 * serves and has settled, with no workflow run, so no sandbox process exists. Measured on its
 * second start on the data directory, as a platform usually runs.
 */
export async function idlePlatformRss(): Promise<number | undefined> {
  const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-idle-"));
  try {
    await startAndRead(dataDir, 0);
    return (await startAndRead(dataDir, restMs)).restBytes;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Reads a process's resident memory every 200 ms until stopped; `stop` answers the highest reading. */
export function sampleRss(pid: number | undefined): { stop(): number | undefined } {
  let highest: number | undefined;
  const read = () => {
    const bytes = pid === undefined ? undefined : processTreeRssBytes(pid);
    if (bytes !== undefined) highest = Math.max(highest ?? 0, bytes);
  };
  read();
  const timer = setInterval(read, 200);
  return {
    stop: () => {
      clearInterval(timer);
      read();
      return highest;
    },
  };
}
