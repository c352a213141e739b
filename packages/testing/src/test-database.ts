import { randomBytes } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { PGlite } from "@electric-sql/pglite";
import { type DatabaseHandle, openDatabase, pgliteWasmModule, useEmbedded, usePostgres } from "@weft/server/internals";
import pg from "pg";

/**
 * Set by the run's global setup (`makeDatabaseTemplates`): a migrated PGlite data directory, dumped
 * to a file, and a migrated database on the test server. Each test database starts as a copy of
 * one instead of migrating anew: loading takes a sixth of migrating.
 */
const pgliteTemplateVariable = "WEFT_TEST_PGLITE_TEMPLATE";
const serverTemplateVariable = "WEFT_TEST_SERVER_TEMPLATE";

/**
 * The PostgreSQL server the suite runs against, when one is chosen; unset means every test file
 * gets its own in-memory PGlite. `.ci/run` runs the suite once each way.
 */
export function testServerUrl(): string | undefined {
  const url = process.env.WEFT_TEST_DATABASE_URL;
  return url === undefined || url === "" ? undefined : url;
}

/**
 * The migrated PGlite data directory the run's global setup dumped, as PGlite's `loadDataDir`;
 * undefined outside a test run.
 */
export function embeddedTemplate(): Blob | undefined {
  const template = process.env[pgliteTemplateVariable];
  return template === undefined || template === "" ? undefined : new Blob([readFileSync(template)]);
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

/** An in-memory PGlite, a copy of the run's migrated template when there is one. */
function newInMemoryPGlite(): Promise<PGlite> {
  const template = embeddedTemplate();
  return PGlite.create({ pgliteWasmModule: pgliteWasmModule(), loadDataDir: template });
}

/**
 * Creates an empty, migrated database of its own for one test file: on the server named by
 * `serverUrl` (by default WEFT_TEST_DATABASE_URL), or a PGlite when there is none or `serverUrl` is
 * `false`: in memory, or in the data directory `embeddedDataDir` opened as `npm start` opens it, its
 * commits flushed to the disk (benchmarks measure that one: it is what a user runs, and an in-memory
 * PGlite stalls whenever one of its growing files is copied to a larger buffer).
 */
export async function createTestDatabase(
  serverUrl: string | false | undefined = testServerUrl(),
  options: { embeddedDataDir?: string } = {},
): Promise<TestDatabase> {
  if (serverUrl === undefined || serverUrl === false) {
    const handle =
      options.embeddedDataDir === undefined
        ? await useEmbedded(await newInMemoryPGlite())
        : await openDatabase({ kind: "embedded", dataDir: options.embeddedDataDir });
    return { ...handle, url: undefined, destroy: () => handle.close() };
  }
  const template = serverUrl === testServerUrl() ? process.env[serverTemplateVariable] : undefined;
  const empty = await createEmptyServerDatabase(serverUrl, template);
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

/**
 * A fresh server database: empty (not migrated), for tests of the migrator itself, or a copy of
 * the database named `template`.
 */
export async function createEmptyServerDatabase(
  serverUrl: string,
  template?: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `weft_test_${randomBytes(6).toString("hex")}`;
  await runAsAdmin(
    serverUrl,
    template === undefined || template === ""
      ? `create database ${name}`
      : `create database ${name} template ${template}`,
  );
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    drop: () => runAsAdmin(serverUrl, `drop database if exists ${name} with (force)`),
  };
}

/**
 * The run's global setup: migrates one PGlite and, when the suite runs against a server, one server
 * database, for every test database to copy; answers the teardown that removes them.
 */
export async function makeDatabaseTemplates(directory: string): Promise<() => Promise<void>> {
  const embedded = new PGlite({ pgliteWasmModule: pgliteWasmModule() });
  await useEmbedded(embedded);
  const dump = `${directory}/pglite-template.tar`;
  writeFileSync(dump, Buffer.from(await (await embedded.dumpDataDir("none")).arrayBuffer()));
  await embedded.close();
  process.env[pgliteTemplateVariable] = dump;
  const serverUrl = testServerUrl();
  if (serverUrl === undefined) return async () => rmSync(dump, { force: true });
  const template = await createEmptyServerDatabase(serverUrl);
  const migrated = await usePostgres(template.url);
  await migrated.close();
  process.env[serverTemplateVariable] = new URL(template.url).pathname.slice(1);
  return async () => {
    rmSync(dump, { force: true });
    await template.drop();
  };
}
