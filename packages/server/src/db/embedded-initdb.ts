import { spawn } from "node:child_process";
import { once } from "node:events";
import { renameSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { reduceMemory } from "../shared/reduce-memory.ts";

const initdbProcess = fileURLToPath(new URL("./embedded-initdb-process.ts", import.meta.url));

/** What the initdb process printed last, for the error that names its failure. */
const stderrTailBytes = 4096;

/**
 * Creates the embedded database's cluster in `directory` (empty or absent) with PGlite's initdb,
 * run in a process of its own. PGlite makes a cluster with a second PostgreSQL instance beside the
 * first and copies its files over, which takes several times the memory the platform then needs;
 * the platform would keep much of it, and a process that ends gives it all back. Nothing of initdb
 * runs twice, so it runs without V8's optimizing compiler (`--liftoff-only`), which would only
 * spend memory and a core on PostgreSQL's parser. It writes beside `directory` and renames its work
 * into place once complete: a start stopped half-way leaves no half-made database.
 */
export async function createEmbeddedCluster(directory: string): Promise<void> {
  const work = `${directory}.initdb`;
  rmSync(work, { recursive: true, force: true });
  // The two processes' memory adds up while initdb runs: what loading this one's modules left goes back first.
  reduceMemory();
  try {
    const child = spawn(process.execPath, ["--liftoff-only", initdbProcess, work], {
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr = (stderr + chunk).slice(-stderrTailBytes);
    });
    const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
    if (code !== 0) {
      throw new Error(
        `creating the embedded database in ${directory} failed (initdb ${signal === null ? `exited with code ${code}` : `ended by ${signal}`}): ${stderr.trim()}`,
      );
    }
    rmSync(directory, { recursive: true, force: true });
    renameSync(work, directory);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
