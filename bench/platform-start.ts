import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { processTreeRssBytes } from "@weft/server/internals";
import { freePort, serverEntry } from "@weft/testing";

/** What one start of `npm start` on a data directory measured, from its spawn until it rested. */
export interface StartReadings {
  /** From the spawn to the first 200 of `GET /healthz`. */
  healthySeconds: number;
  /**
   * The highest resident memory of the process tree, read every 100 ms: the platform and what it
   * starts, such as the initdb process of a first start.
   */
  treePeakBytes: number | undefined;
  /** The platform process's own high-water mark (`VmHWM`), which no sampling misses. */
  platformPeakBytes: number | undefined;
  /** Resident memory of the tree once it rested for `restMs` after answering `/healthz`. */
  restBytes: number | undefined;
}

function highWaterMarkBytes(pid: number): number | undefined {
  try {
    const kib = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return kib === null ? undefined : Number(kib[1]) * 1024;
  } catch {
    return undefined;
  }
}

/**
 * Starts `npm start` (every role, the embedded database in `dataDir`), waits for `/healthz`, leaves
 * it alone for `restMs`, reads it and stops it.
 */
export async function startAndRead(dataDir: string, restMs: number): Promise<StartReadings> {
  const port = await freePort();
  const startedAt = performance.now();
  const server = spawn(process.execPath, [serverEntry], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port), WEFT_DATA_DIR: dataDir, WEFT_LOG_LEVEL: "warn" },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = once(server, "exit");
  const pid = server.pid;
  let treePeakBytes: number | undefined;
  const sample = () => {
    const bytes = pid === undefined ? undefined : processTreeRssBytes(pid);
    if (bytes !== undefined) treePeakBytes = Math.max(treePeakBytes ?? 0, bytes);
  };
  const sampling = setInterval(sample, 100);
  try {
    let healthySeconds: number | undefined;
    while (healthySeconds === undefined) {
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (ok) healthySeconds = (performance.now() - startedAt) / 1000;
      else if (server.exitCode !== null)
        throw new Error(`npm start exited with code ${server.exitCode} before serving`);
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await new Promise((resolve) => setTimeout(resolve, restMs));
    sample();
    return {
      healthySeconds,
      treePeakBytes,
      platformPeakBytes: pid === undefined ? undefined : highWaterMarkBytes(pid),
      restBytes: pid === undefined ? undefined : processTreeRssBytes(pid),
    };
  } finally {
    clearInterval(sampling);
    server.kill("SIGTERM");
    await exited;
  }
}
