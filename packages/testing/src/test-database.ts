import { randomBytes } from "node:crypto";
import { PGlite } from "@electric-sql/pglite";
import { type DatabaseHandle, useEmbedded, usePostgres } from "@weft/server/internals";
import pg from "pg";

/**
 * The PostgreSQL server the suite runs against, when one is chosen; unset means every test file
 * gets its own in-memory PGlite. `.ci/run` runs the suite once each way.
 */
export function testServerUrl(): string | undefined {
  const url = process.env.WEFT_TEST_DATABASE_URL;
  return url === undefined || url === "" ? undefined : url;
}

export interface TestDatabase extends DatabaseHandle {
  /** The URL of the fresh server database, or undefined for PGlite. */
  url: string | undefined;
  /** Closes the handle and drops the database. */
  destroy(): Promise<void>;
}

async function runAsAdmin(serverUrl: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/**
 * Creates an empty, migrated database of its own for one test file: on the server named by
 * `serverUrl` (by default WEFT_TEST_DATABASE_URL), or a PGlite when there is none or `serverUrl` is
 * `false`: in memory, or in `embeddedDirectory` on disk as `npm start` keeps it (benchmarks measure
 * that one: an in-memory PGlite stalls whenever one of its growing files is copied to a larger buffer).
 */
export async function createTestDatabase(
  serverUrl: string | false | undefined = testServerUrl(),
  options: { embeddedDirectory?: string } = {},
): Promise<TestDatabase> {
  if (serverUrl === undefined || serverUrl === false) {
    const handle = await useEmbedded(await PGlite.create(options.embeddedDirectory));
    return { ...handle, url: undefined, destroy: () => handle.close() };
  }
  const empty = await createEmptyServerDatabase(serverUrl);
  const handle = await usePostgres(empty.url);
  return {
    ...handle,
    url: empty.url,
    destroy: async () => {
      await handle.close();
      await empty.drop();
    },
  };
}

/** A fresh, empty (not migrated) server database, for tests of the migrator itself. */
export async function createEmptyServerDatabase(serverUrl: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `weft_test_${randomBytes(6).toString("hex")}`;
  await runAsAdmin(serverUrl, `create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: () => runAsAdmin(serverUrl, `drop database if exists ${name} with (force)`),
  };
}
