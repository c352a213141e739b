import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { captureChildOutput, registerSecret } from "./log-capture.ts";

/** `src/worker-main.ts`, beside the `main.ts` that `@weft/server/main` names. */
const workerEntry = fileURLToPath(new URL("./worker-main.ts", import.meta.resolve("@weft/server/main")));

/** Every process of one database shares the secret key: wait token ids are derived from it. */
const sharedSecretKey = "ab".repeat(32);

/**
 * A worker process (`weft worker`) on the PostgreSQL database at `databaseUrl`, with a 2-second
 * lease; `exited` answers its exit code. Its data dir is `options.dataDir`, which the caller keeps
 * across restarts and removes, or else one of its own, removed once it has exited.
 */
export function spawnWorker(
  databaseUrl: string,
  env: Record<string, string> = {},
  options: { dataDir?: string } = {},
): { child: ChildProcess; exited: Promise<number | null> } {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "weft-worker-"));
  const child = spawn(process.execPath, [workerEntry], {
    env: {
      PATH: process.env.PATH ?? "",
      DATABASE_URL: databaseUrl,
      WEFT_DATA_DIR: dataDir,
      WEFT_WORKER_LEASE_SECONDS: "2",
      WEFT_LOG_LEVEL: "warn",
      WEFT_SECRET_KEY: sharedSecretKey,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  captureChildOutput(child, "worker");
  registerSecret(env.WEFT_SECRET_KEY ?? sharedSecretKey);
  child.stderr?.pipe(process.stderr);
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
      resolve(code);
    }),
  );
  return { child, exited };
}
