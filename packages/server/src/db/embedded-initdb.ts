import { spawn } from "node:child_process";
import { once } from "node:events";
import { renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { type ClusterSource, shippedClusterSource, unpackClusterTemplate } from "./embedded-cluster-template.ts";
import { flushPath, flushTree } from "./flush-tree.ts";

const initdbProcess = fileURLToPath(new URL("./embedded-initdb-process.ts", import.meta.url));

/** What the initdb process printed last, for the error that names its failure. */
const stderrTailBytes = 4096;

/**
 * Creates the embedded database's cluster in `directory` (empty or absent). The cluster shipped
 * for the installed PGlite is unpacked when there is one (`embedded-cluster-template.ts`): PGlite's
 * initdb starts a second PostgreSQL instance beside the first and copies its files over, which
 * took about 690 MB and two seconds of CPU for the same 40 MB of files. Otherwise initdb runs, in a
 * process of its own so that all it needed goes back to the system when it exits. Nothing of initdb
 * runs twice, so that process runs without V8's optimizing compiler (`--liftoff-only`). Either way
 * the work goes beside `directory`, reaches the disk, and is renamed into place: neither a start
 * stopped half-way nor a power loss leaves a half-made database where a made one is looked for.
 */
export async function createEmbeddedCluster(
  directory: string,
  source: ClusterSource = shippedClusterSource(),
): Promise<void> {
  const work = `${directory}.initdb`;
  rmSync(work, { recursive: true, force: true });
  try {
    if (source.kind === "template") unpackTemplate(source.file, directory, work);
    else await runInitdb(directory, work);
    await flushTree(work);
    rmSync(directory, { recursive: true, force: true });
    renameSync(work, directory);
    await flushPath(dirname(directory));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function unpackTemplate(file: string, directory: string, work: string): void {
  try {
    unpackClusterTemplate(file, work);
  } catch (error) {
    throw new Error(
      `creating the embedded database in ${directory} failed (unpacking ${file}): ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

async function runInitdb(directory: string, work: string): Promise<void> {
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
}
