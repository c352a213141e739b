import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { captureChildOutput, registerSecret } from "./log-capture.ts";

/** `src/worker-main.ts`, beside the `main.ts` that `@weft/server/main` names. */
const workerEntry = fileURLToPath(new URL("./worker-main.ts", import.meta.resolve("@weft/server/main")));

/** Every process of one database shares the secret key: wait token ids are derived from it. */
const sharedSecretKey = "ab".repeat(32);

/** A worker process (`weft worker`) on the PostgreSQL database at `databaseUrl`, with a 2-second lease. */
export function spawnWorker(
  databaseUrl: string,
  dataDir: string,
  env: Record<string, string> = {},
): { child: ChildProcess; exited: Promise<unknown> } {
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
  return { child, exited: new Promise((resolve) => child.once("exit", resolve)) };
}
