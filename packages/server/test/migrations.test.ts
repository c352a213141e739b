import { PGlite } from "@electric-sql/pglite";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { useEmbedded } from "../src/db/database.ts";
import { migrateEmbedded, migratePostgres } from "../src/db/migrate.ts";
import { createEmptyServerDatabase, testServerUrl } from "./support/index.ts";

async function countApplied(query: (sql: string) => Promise<{ rows: unknown[] }>): Promise<number> {
  const result = await query("select count(*)::int as n from drizzle.__drizzle_migrations");
  return (result.rows[0] as { n: number }).n;
}

describe("migrations", () => {
  it("are idempotent on the embedded database", async () => {
    const client = await PGlite.create();
    const handle = await useEmbedded(client);
    const applied = await countApplied((sql) => client.query(sql));
    expect(applied).toBeGreaterThan(0);
    await migrateEmbedded(client);
    expect(await countApplied((sql) => client.query(sql))).toBe(applied);
    await handle.close();
  });

  it.skipIf(testServerUrl() === undefined)(
    "are applied exactly once when several processes migrate one server at once",
    async () => {
      const serverUrl = testServerUrl() as string;
      const empty = await createEmptyServerDatabase(serverUrl);
      try {
        await Promise.all(Array.from({ length: 5 }, () => migratePostgres(empty.url)));
        const client = new pg.Client({ connectionString: empty.url });
        await client.connect();
        try {
          const applied = await countApplied((sql) => client.query(sql));
          const local = await PGlite.create();
          await migrateEmbedded(local);
          expect(applied).toBe(await countApplied((sql) => local.query(sql)));
          await local.close();
        } finally {
          await client.end();
        }
      } finally {
        await empty.drop();
      }
    },
  );
});
