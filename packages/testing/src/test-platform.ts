import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Config, loadConfig, type RunningPlatform, startPlatform } from "@weft/server";
import type { DatabaseHandle, ResolveHost, Timers } from "@weft/server/internals";
import { createManualClock, type Logger, type ManualClock } from "@weft/server/internals";
import { testPlatformLogger } from "./log-capture.ts";
import { createTestDatabase, type TestDatabase } from "./test-database.ts";

export interface TestPlatform {
  /** The platform's base URL, e.g. http://127.0.0.1:41234. */
  url: string;
  clock: ManualClock;
  database: TestDatabase;
  platform: RunningPlatform;
  /** `/dev/mailbox` with its key, when the platform keeps mail there. */
  mailboxUrl: string | undefined;
  stop(): Promise<void>;
}

/** Asks the OS for a port nobody listens on, so the base URL is known before the server starts. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (typeof address !== "object" || address === null) throw new Error("no port");
  return address.port;
}

/**
 * The environment of a platform that serves on 127.0.0.1 at `port` and keeps its data in `dataDir`:
 * what tests and benchmarks start their local platforms with.
 */
export function localPlatformEnv(port: number, dataDir: string): Record<string, string> {
  return {
    PORT: String(port),
    HOST: "127.0.0.1",
    WEFT_BASE_URL: `http://127.0.0.1:${port}`,
    WEFT_DATA_DIR: dataDir,
  };
}

export interface TestPlatformOptions {
  /** Extra environment variables, parsed exactly as in production. */
  env?: Record<string, string>;
  /** Adjustments to the parsed configuration that have no environment variable. */
  configure?: (config: Config) => Config;
  clock?: ManualClock;
  /** A PostgreSQL server to create the database on, or `false` for PGlite; by default WEFT_TEST_DATABASE_URL decides. */
  databaseServer?: string | false;
  /** Timers for the platform's deadlines, e.g. `createManualTimers()` to make a budget pass at will. */
  timers?: Timers;
  /** Puts something between the platform and its database, e.g. `createDatabaseGate().wrap` to make it slow. */
  wrapDatabase?: (database: DatabaseHandle) => DatabaseHandle;
  /** Where the platform logs; by default the run's log capture (`testPlatformLogger`). */
  logger?: Logger;
  /** How the sandboxes' egress proxy resolves host names (the system resolver by default). */
  resolveHost?: ResolveHost;
}

/**
 * Starts a real platform process-in-process on a free port with its own fresh database, a manual
 * clock and a temporary data dir. Tests talk to it over HTTP.
 */
export async function startTestPlatform(options: TestPlatformOptions = {}): Promise<TestPlatform> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), "weft-test-"));
  const loaded = loadConfig({
    ...localPlatformEnv(port, dataDir),
    ...options.env,
  });
  const config = options.configure ? options.configure(loaded) : loaded;
  const database = await createTestDatabase(options.databaseServer);
  const clock = options.clock ?? createManualClock();
  const logger = options.logger ?? testPlatformLogger("platform");
  const platform = await startPlatform(config, {
    clock,
    logger,
    // A manual clock moved ahead makes queued executions look long kept waiting: a test reads the
    // queue (`backpressure.refresh()`) when it means to.
    queueReading: "on request",
    database: options.wrapDatabase ? options.wrapDatabase(database) : database,
    ...(options.timers === undefined ? {} : { timers: options.timers }),
    ...(options.resolveHost === undefined ? {} : { resolveHost: options.resolveHost }),
  });
  return {
    url: config.baseUrl,
    clock,
    database,
    platform,
    mailboxUrl:
      platform.context.mailer.outbox === undefined
        ? undefined
        : `${config.baseUrl}/dev/mailbox?key=${platform.context.mailer.outbox.key}`,
    stop: async () => {
      await platform.stop();
      await database.destroy().catch(() => undefined);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
