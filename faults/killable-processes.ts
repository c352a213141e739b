import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  freePort,
  localPlatformEnv,
  type ServerProcess,
  spawnServer,
  spawnWorker,
  waitUntilServing,
} from "@weft/testing";

/** Every process of one database shares the secret key: wait token ids are derived from it. */
export const sharedSecretKey = "ab".repeat(32);

/**
 * What every process of the test runs with. The sandboxes reach the step counter on the loopback
 * address. The crash-loop limit is lifted: it fails an execution whose worker died 3 times while
 * running it, by design, bystanders included (docs/decisions/0096-crash-loop-is-broken.md), and this
 * test SIGKILLs the same worker again and again, so on a slow machine an execution taken over at
 * each kill reaches 3 without any code of its own at fault. The figures print the most takeovers.
 */
const faultProcessEnv = { WEFT_SANDBOX_EGRESS_ALLOW: "127.0.0.1", WEFT_CRASH_ATTEMPTS: "100" };

/** A process the fault test kills with SIGKILL and starts again in the same place. */
export interface KillableProcess {
  readonly name: string;
  /** Its base URL, for a platform process. */
  readonly url: string | undefined;
  /** Started and, for a platform, serving: a process still starting is left alone. */
  alive(): boolean;
  /** Exits nobody asked for (a crash), across its restarts. */
  crashes(): number;
  kill(): Promise<void>;
  start(): Promise<void>;
  /** SIGTERM, for the end of the run. */
  stop(): Promise<void>;
  /** What it printed on stderr, across its restarts. */
  stderr(): string;
}

/**
 * A platform process serving on a fixed port with a fixed data dir (so a restart finds the same
 * embedded database, when there is no `DATABASE_URL`), waited for until it serves.
 */
export async function platformProcess(name: string, env: Record<string, string>): Promise<KillableProcess> {
  const port = await freePort();
  const ownDataDir = env.WEFT_DATA_DIR === undefined;
  const dataDir = env.WEFT_DATA_DIR ?? mkdtempSync(join(tmpdir(), "weft-faults-platform-"));
  let current: ServerProcess | undefined;
  let serving = false;
  let crashes = 0;
  let earlierStderr = "";
  const url = `http://127.0.0.1:${port}`;
  return {
    name,
    url,
    alive: () => serving,
    crashes: () => crashes,
    start: async () => {
      const started = spawnServer({
        ...localPlatformEnv(port, dataDir),
        WEFT_SECRET_KEY: sharedSecretKey,
        WEFT_RATE_LIMIT_FORMS: "100000",
        ...faultProcessEnv,
        ...env,
      });
      current = started;
      void started.exited.then(() => {
        if (current !== started) return;
        crashes += 1;
        serving = false;
        earlierStderr += started.stderr();
        current = undefined;
      });
      await waitUntilServing(started, 300_000);
      serving = true;
    },
    kill: async () => {
      const killed = current;
      current = undefined;
      serving = false;
      if (killed === undefined) return;
      killed.child.kill("SIGKILL");
      await killed.exited;
      earlierStderr += killed.stderr();
    },
    stop: async () => {
      const stopped = current;
      current = undefined;
      serving = false;
      if (stopped === undefined) return;
      stopped.child.kill("SIGTERM");
      await stopped.exited;
      earlierStderr += stopped.stderr();
      if (ownDataDir) rmSync(dataDir, { recursive: true, force: true });
    },
    stderr: () => earlierStderr + (current?.stderr() ?? ""),
  };
}

/**
 * The workers' lease. `spawnWorker`'s 2 s lapses on a machine whose cores are shared and busy: a
 * worker starved of CPU for 2 s loses its executions to another while it still runs them.
 */
const workerLeaseSeconds = 10;

/** A worker process (`weft worker`) on PostgreSQL. */
export function workerProcess(name: string, databaseUrl: string): KillableProcess {
  const dataDir = mkdtempSync(join(tmpdir(), "weft-faults-worker-"));
  let current: ReturnType<typeof spawnWorker> | undefined;
  let crashes = 0;
  const end = async (signal: NodeJS.Signals) => {
    const ended = current;
    current = undefined;
    if (ended === undefined) return;
    ended.child.kill(signal);
    await ended.exited;
  };
  return {
    name,
    url: undefined,
    alive: () => current !== undefined,
    crashes: () => crashes,
    start: async () => {
      const started = spawnWorker(
        databaseUrl,
        {
          ...faultProcessEnv,
          WEFT_WORKER_CONCURRENCY: "50",
          WEFT_WORKER_LEASE_SECONDS: String(workerLeaseSeconds),
        },
        { dataDir },
      );
      current = started;
      void started.exited.then(() => {
        if (current !== started) return;
        crashes += 1;
        current = undefined;
      });
    },
    kill: () => end("SIGKILL"),
    stop: async () => {
      await end("SIGTERM");
      rmSync(dataDir, { recursive: true, force: true });
    },
    stderr: () => "",
  };
}
