import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/node-postgres";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import pg from "pg";
import { reduceMemory } from "../shared/reduce-memory.ts";
import { lockDataDir } from "./data-dir-lock.ts";
import { DurableNodeFS } from "./durable-node-fs.ts";
import { type EmbeddedDurability, embeddedStartParams } from "./embedded-durability.ts";
import { createEmbeddedCluster } from "./embedded-initdb.ts";
import { withStatementCache } from "./embedded-statement-cache.ts";
import { migrateEmbedded, migratePostgres } from "./migrate.ts";
import { pgliteWasmModule } from "./pglite-wasm-module.ts";
import * as schema from "./schema/index.ts";

export type Schema = typeof schema;

/**
 * Where the platform's data lives (DATABASE_URL): the embedded database in the data dir, committing
 * with `durability` (`full` when left out), or a PostgreSQL server.
 */
export type DatabaseConfig =
  | { kind: "embedded"; dataDir: string; durability?: EmbeddedDurability }
  | { kind: "postgres"; url: string };

/** The Drizzle database, the same type whichever driver is underneath. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

export type Transaction = Parameters<Parameters<Database["transaction"]>[0]>[0];

export interface DatabaseHandle {
  db: Database;
  kind: "embedded" | "postgres";
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  /**
   * Subscribes to a NOTIFY channel; resolves with the unsubscribe function. Delivery is best effort
   * (a dropped connection loses notifications until it is re-established), so listeners also poll.
   */
  listen(channel: string, onNotification: (payload: string) => void): Promise<() => Promise<void>>;
  /** Flushes to the disk the embedded database in a data dir has made since it opened; absent for any other. */
  syncs?(): number;
  close(): Promise<void>;
}

/** Wraps an open PGlite instance; migrations are applied before it is returned. */
export async function useEmbedded(client: PGlite): Promise<DatabaseHandle> {
  await migrateEmbedded(client);
  const db = drizzlePglite({ client: withStatementCache(client), schema }) as unknown as Database;
  return {
    db,
    kind: "embedded",
    ping: async () => {
      await client.query("select 1");
    },
    listen: (channel, onNotification) => client.listen(channel, onNotification),
    close: () => client.close(),
  };
}

/** Opens a pool on a PostgreSQL server; migrations are applied before it is returned. */
export async function usePostgres(url: string): Promise<DatabaseHandle> {
  await migratePostgres(url);
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  // An idle pooled connection that the server closes (restart, failover) is replaced on next use;
  // without a listener its error event would crash the process.
  pool.on("error", () => undefined);
  // A connection the server closes while it is checked out between two statements (a transaction
  // that awaits something else) emits an error that nobody listens to, which would end the
  // process; with this listener its next statement fails instead, and the pool drops it.
  pool.on("connect", (client) => client.on("error", () => undefined));
  const db = drizzlePostgres({ client: pool, schema }) as unknown as Database;
  const notifications = createNotificationListener(url);
  return {
    db,
    kind: "postgres",
    ping: async () => {
      await pool.query("select 1");
    },
    listen: (channel, onNotification) => notifications.listen(channel, onNotification),
    close: async () => {
      await notifications.close();
      await pool.end();
    },
  };
}

const reconnectDelayMs = 1000;

/**
 * One dedicated connection holds every LISTEN of a process (a pooled connection would lose them).
 * If it drops, it is re-opened and the channels are listened to again after a short delay.
 */
function createNotificationListener(url: string) {
  const callbacks = new Map<string, Set<(payload: string) => void>>();
  let connection: Promise<pg.Client> | undefined;
  let closed = false;

  const quote = (channel: string) => `"${channel.replaceAll('"', '""')}"`;

  // Until it succeeds: right after a restart the server refuses connections for a while ("the
  // database system is starting up"), and a single attempt then would leave the channels deaf.
  let reconnectTimer: NodeJS.Timeout | undefined;
  function reconnectLater(): void {
    if (closed || callbacks.size === 0 || reconnectTimer !== undefined) return;
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined;
      if (!closed) connect().catch(reconnectLater);
    }, reconnectDelayMs);
    reconnectTimer.unref();
  }

  function connect(): Promise<pg.Client> {
    connection ??= (async () => {
      const client = new pg.Client({ connectionString: url });
      client.on("notification", (message) => {
        for (const callback of callbacks.get(message.channel) ?? []) callback(message.payload ?? "");
      });
      client.on("error", () => {
        connection = undefined;
        client.end().catch(() => undefined);
        reconnectLater();
      });
      await client.connect();
      for (const channel of callbacks.keys()) await client.query(`listen ${quote(channel)}`);
      return client;
    })();
    connection.catch(() => {
      connection = undefined;
    });
    return connection;
  }

  return {
    async listen(channel: string, onNotification: (payload: string) => void): Promise<() => Promise<void>> {
      const existing = callbacks.get(channel);
      const set = existing ?? new Set();
      set.add(onNotification);
      callbacks.set(channel, set);
      try {
        const client = await connect();
        if (existing === undefined) await client.query(`listen ${quote(channel)}`);
      } catch (error) {
        // Not listening, so nothing stays registered: a caller that tries again registers once.
        set.delete(onNotification);
        if (set.size === 0) callbacks.delete(channel);
        throw error;
      }
      return async () => {
        set.delete(onNotification);
        if (set.size === 0) {
          callbacks.delete(channel);
          const current = await connection?.catch(() => undefined);
          await current?.query(`unlisten ${quote(channel)}`).catch(() => undefined);
        }
      };
    },
    async close(): Promise<void> {
      closed = true;
      const current = await connection?.catch(() => undefined);
      connection = undefined;
      await current?.end().catch(() => undefined);
    },
  };
}

const embeddedSharedBuffers = "shared_buffers=16MB";

/**
 * After a failed flush PostgreSQL PANICs and PGlite answers nothing more: every later request would
 * hang. A PostgreSQL server restarts and replays its WAL then; the embedded one can only do that in
 * a new process, so this one ends, for its supervisor (systemd, the container's restart policy) to
 * start it again. Nothing was acknowledged that the failed flush was to make durable.
 */
function exitOnFailedFlush(error: unknown): void {
  const reason = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `The embedded database could not flush a commit to the disk (${reason}); exiting, so that a restart recovers it from its write-ahead log.\n`,
  );
  process.exit(1);
}

/**
 * PostgreSQL in `directory` as the platform runs it embedded (the cluster created first when there
 * is none), committing with `durability`; not migrated, not locked.
 */
export async function startEmbeddedCluster(
  directory: string,
  durability: EmbeddedDurability,
  onFlushFailed: (error: unknown) => void = exitOnFailedFlush,
): Promise<{ client: PGlite; fs: DurableNodeFS }> {
  // What loading the modules left goes back before PostgreSQL's memory, and a new cluster's files (or
  // initdb's process beside this one), join it: the start's peak is their sum.
  reduceMemory();
  if (!existsSync(join(directory, "PG_VERSION"))) await createEmbeddedCluster(directory);
  const fs = new DurableNodeFS(directory, { onFlushFailed });
  const client = await PGlite.create({
    fs,
    pgliteWasmModule: pgliteWasmModule(),
    // PostgreSQL's 128 MB of shared buffers are resident in PGlite's WebAssembly memory (about 120 MB
    // of an idle platform's); its files are read through the operating system's cache anyway.
    postgresqlconf: [embeddedSharedBuffers],
    startParams: embeddedStartParams(durability),
  });
  return { client, fs };
}

/**
 * Opens the configured database (the embedded one lives in `<dataDir>/pgdata`) and migrates it. The
 * embedded database belongs to one process: another live process on the same data directory is
 * refused with `DataDirLockedError`. With `full` durability its commits reach the disk before they
 * are acknowledged (`DurableNodeFS`, `embeddedStartParams`).
 */
export async function openDatabase(config: DatabaseConfig): Promise<DatabaseHandle> {
  if (config.kind === "postgres") return usePostgres(config.url);
  const directory = join(config.dataDir, "pgdata");
  mkdirSync(directory, { recursive: true });
  const lock = lockDataDir(config.dataDir);
  try {
    const { client, fs } = await startEmbeddedCluster(directory, config.durability ?? "full");
    const handle = await useEmbedded(client);
    return {
      ...handle,
      syncs: () => fs.syncs,
      close: async () => {
        await handle.close();
        lock.release();
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}
