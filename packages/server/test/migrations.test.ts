import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { createEmptyServerDatabase, testServerUrl } from "@weft/testing";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { useEmbedded } from "../src/db/database.ts";
import { migrateEmbedded, migratePostgres } from "../src/db/migrate.ts";

async function countApplied(query: (sql: string) => Promise<{ rows: unknown[] }>): Promise<number> {
  const result = await query("select count(*)::int as n from drizzle.__drizzle_migrations");
  return (result.rows[0] as { n: number }).n;
}

const folder = join(import.meta.dirname, "../drizzle");
const files = readdirSync(folder)
  .filter((name) => name.endsWith(".sql"))
  .sort();

async function apply(client: PGlite, file: string): Promise<void> {
  for (const statement of readFileSync(join(folder, file), "utf8").split("--> statement-breakpoint")) {
    await client.exec(statement);
  }
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

  it("moves stored idempotency keys into the scope of the trigger they came from", async () => {
    const client = await PGlite.create();
    const scopeMigration = files.findIndex((name) => name.startsWith("0002_"));
    for (const file of files.slice(0, scopeMigration)) await apply(client, file);
    // Keys as they were stored before scopes: the trigger's prefix inside the key.
    await client.exec(`
      set session_replication_role = replica;
      insert into executions (id, project_id, deployment_id, workflow, status, attempt, max_attempts,
        retry_min_delay_ms, retry_max_delay_ms, run_at, trigger_kind, trigger_name, trace_id,
        execution_span_id, logs, created_at)
      select id, 'prj_1', 'dep_1', 'echo', 'queued', 1, 1, 0, 0, now(), kind, name, 't', 's', '[]', now()
      from (values ('exe_api', 'api', null), ('exe_hook', 'webhook', 'orders'), ('exe_form', 'form', 'contact'))
        as triggers (id, kind, name);
      insert into idempotency_keys (project_id, key, execution_id, expires_at) values
        ('prj_1', 'webhook:orders:K', 'exe_api', now()),
        ('prj_1', 'webhook:orders:K2', 'exe_hook', now()),
        ('prj_1', 'form:contact:nonce', 'exe_form', now());
      set session_replication_role = default;
    `);
    await apply(client, files[scopeMigration] ?? "");
    const migrated = await client.query("select scope, key, execution_id from idempotency_keys order by execution_id");
    expect(migrated.rows).toEqual([
      { scope: "api:echo", key: "webhook:orders:K", execution_id: "exe_api" },
      { scope: "form:contact", key: "nonce", execution_id: "exe_form" },
      { scope: "webhook:orders", key: "K2", execution_id: "exe_hook" },
    ]);
    await client.close();
  });

  it("keeps executions metered at their insert counted once, now that they are metered when they end", async () => {
    const client = await PGlite.create();
    const endMetering = files.findIndex((name) => name.startsWith("0017_"));
    for (const file of files.slice(0, endMetering)) await apply(client, file);
    // Before: every inserted execution had appended its start (one execution, its input's bytes).
    await client.exec(`
      set session_replication_role = replica;
      insert into executions (id, project_id, deployment_id, workflow, status, input, attempt, max_attempts,
        retry_min_delay_ms, retry_max_delay_ms, run_at, trigger_kind, trace_id, execution_span_id, logs, created_at)
      select id, 'prj_1', 'dep_1', 'echo', status, '{"n":1}', 1, 1, 0, 0, now(), 'webhook', 't', 's', '[]', now()
      from (values ('exe_queued', 'queued'), ('exe_running', 'running'), ('exe_ended', 'succeeded')) as rows (id, status);
      insert into usage_deltas (project_id, at, trigger_kind, executions, bytes)
      select project_id, created_at, trigger_kind, 1, octet_length(input::text) from executions;
      set session_replication_role = default;
    `);
    // What the readers add up: the deltas, and each unfinished execution as one started.
    const metered = async () =>
      (
        await client.query<{
          executions: number;
          bytes: number;
        }>(`select sum(executions)::int as executions, sum(bytes)::int as bytes
          from (select executions, bytes from usage_deltas
            union all select 1, octet_length(input::text) from executions
            where status not in ('succeeded', 'failed', 'cancelled')) as m`)
      ).rows[0];
    const inputBytes = '{"n": 1}'.length;
    await apply(client, files[endMetering] ?? "");
    expect(await metered()).toEqual({ executions: 3, bytes: 3 * inputBytes });
    await client.exec(`update executions set status = 'failed' where id = 'exe_running'`);
    expect(await metered()).toEqual({ executions: 3, bytes: 3 * inputBytes });
    // Only leaving the unfinished states appends a start.
    await client.exec(`update executions set status = 'cancelled' where id = 'exe_ended'`);
    await client.exec(`update executions set status = 'running' where id = 'exe_queued'`);
    expect(await metered()).toEqual({ executions: 3, bytes: 3 * inputBytes });
    await client.close();
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
