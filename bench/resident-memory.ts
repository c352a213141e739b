import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { processTreeRssBytes } from "@weft/server/internals";
import { freePort, serverEntry } from "@weft/testing";

const MiB = 1024 * 1024;

/** Resident memory of a platform at rest must stay under this (the server process, no sandbox running). */
export const idleTargetBytes = 200 * MiB;

/** How long a started platform is left alone before its memory is read: start-up garbage is collected by then. */
const settleMs = 5000;

export function formatMiB(bytes: number | undefined): string {
  return bytes === undefined ? "unknown (no /proc)" : `${(bytes / MiB).toFixed(0)} MB`;
}

/**
 * Resident memory of `npm start` (every role, worker included, on the embedded database) once it
 * serves and has settled, with no workflow run, so no sandbox process exists. Measured on its
 * second start on the data directory, as a platform usually runs: the first start also creates
 * the database (initdb), whose memory the process keeps.
 */
export async function idlePlatformRss(): Promise<number | undefined> {
  const dataDir = mkdtempSync(join(tmpdir(), "weft-bench-idle-"));
  try {
    await startSettleAndRead(dataDir);
    return await startSettleAndRead(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function startSettleAndRead(dataDir: string): Promise<number | undefined> {
  const server = spawn(process.execPath, [serverEntry], {
    env: {
      PATH: process.env.PATH ?? "",
      PORT: String(await freePort()),
      WEFT_DATA_DIR: dataDir,
      WEFT_LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const lines = createInterface({ input: server.stdout });
    for await (const line of lines) if (line.includes("Weft is running at")) break;
    await new Promise((resolve) => setTimeout(resolve, settleMs));
    return server.pid === undefined ? undefined : processTreeRssBytes(server.pid);
  } finally {
    server.kill("SIGTERM");
    await once(server, "exit");
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
