import { fileURLToPath } from "node:url";
import type { PGlite } from "@electric-sql/pglite";
import { drizzle as drizzlePostgres } from "drizzle-orm/node-postgres";
import { migrate as migratePostgresFolder } from "drizzle-orm/node-postgres/migrator";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePgliteFolder } from "drizzle-orm/pglite/migrator";
import pg from "pg";
import { retryWhileUnavailable } from "./database-unavailable.ts";

const migrationsFolder = fileURLToPath(new URL("../../drizzle", import.meta.url));

/**
 * Key of the session-level advisory lock held while migrating, so that several processes starting
 * at once against one server apply each migration exactly once (the others wait, then find nothing
 * left to do).
 */
const migrationLockKey = 7_418_220_011;

/**
 * Applies the pending migrations, first waiting for a server that cannot be reached yet (a process
 * started while PostgreSQL restarts would otherwise end at once).
 */
export function migratePostgres(url: string): Promise<void> {
  return retryWhileUnavailable(() => migratePostgresOnce(url));
}

async function migratePostgresOnce(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  // A connection lost between two statements fails the next one instead of ending the process.
  client.on("error", () => undefined);
  await client.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [migrationLockKey]);
    try {
      await migratePostgresFolder(drizzlePostgres({ client }), { migrationsFolder });
    } finally {
      await client.query("select pg_advisory_unlock($1)", [migrationLockKey]);
    }
  } finally {
    await client.end();
  }
}

/** PGlite has a single connection, so the lock only matters for symmetry of the SQL run. */
export async function migrateEmbedded(client: PGlite): Promise<void> {
  await client.query("select pg_advisory_lock($1)", [migrationLockKey]);
  try {
    await migratePgliteFolder(drizzlePglite({ client }), { migrationsFolder });
  } finally {
    await client.query("select pg_advisory_unlock($1)", [migrationLockKey]);
  }
}
