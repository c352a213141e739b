import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { captureChildOutput, registerSecret } from "./log-capture.ts";

let compileCache: string | undefined;

/**
 * The directory of Node's compile cache (`NODE_COMPILE_CACHE`) that the processes a test process
 * starts share, the platform's and the CLI's: without one, each compiles the same modules again,
 * most of a short CLI command's time.
 */
export function subprocessCompileCache(): string {
  compileCache ??= mkdtempSync(join(tmpdir(), "weft-test-compile-cache-"));
  return compileCache;
}

/** The file `npm start` runs. */
export const serverEntry = fileURLToPath(import.meta.resolve("@weft/server/main"));

export interface ServerProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/** Runs `src/main.ts` as its own process, the way `npm start` does, with the given environment. */
export function spawnServer(env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, [serverEntry], {
    env: { PATH: process.env.PATH ?? "", WEFT_LOG_LEVEL: "warn", NODE_COMPILE_CACHE: subprocessCompileCache(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  captureChildOutput(child, "server");
  if (env.WEFT_SECRET_KEY !== undefined) registerSecret(env.WEFT_SECRET_KEY);
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/**
 * Waits until the server prints its start-up banner (or fails if it exits first). A first start on a
 * fresh data directory (initdb, the migrations) takes several times its quiet time while the rest of
 * the suite loads the machine, hence the long default.
 */
export async function waitUntilServing(server: ServerProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!server.stdout().includes("Weft is running at")) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      throw new Error(`server exited with ${server.child.exitCode ?? server.child.signalCode}: ${server.stderr()}`);
    }
    if (Date.now() > deadline) throw new Error(`server did not start in ${timeoutMs} ms: ${server.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
